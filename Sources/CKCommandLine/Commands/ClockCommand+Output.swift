import CKCore

extension ClockCommand {
    /// How the clock runs, in one word: real, offset or fixed.
    static func mode(_ c: StoreClock) -> String { c.fixed != nil ? "fixed" : c.offset != 0 ? "offset" : "real" }

    /// `{"now": ms, "time": ISO 8601, "mode": "real"|"offset"|"fixed", "offset"?: ms, "fixed"?: ms, "pinned"?: ms}`.
    static func json(_ r: CKStore.ClockReading) -> JSON {
        var o: [String: JSON] = ["now": .int(r.now), "time": .string(ISO8601.format(milliseconds: r.now)), "mode": .string(mode(r.clock))]
        if let f = r.clock.fixed { o["fixed"] = .int(f) } else if r.clock.offset != 0 { o["offset"] = .int(r.clock.offset) }
        if let p = r.pinned { o["pinned"] = .int(p) }
        return .object(o)
    }

    /// The setting in words: `fixed`, `offset +5m`, `real`, with CK_NOW when it pins this command.
    static func words(_ r: CKStore.ClockReading) -> String {
        var s = mode(r.clock)
        if r.clock.fixed == nil && r.clock.offset != 0 {
            s += " " + (r.clock.offset > 0 ? "+" : "") + StoreClock.describe(duration: r.clock.offset)
        }
        if r.pinned != nil { s += " (CK_NOW fixes this command's time)" }
        return s
    }

    /// `clock show`: plain `<time>\t<ms>\t<mode>`; a table line for people.
    struct Reading: CommandOutput {
        var reading: CKStore.ClockReading

        var json: JSON { ClockCommand.json(reading) }
        var plain: [String] { ["\(ISO8601.format(milliseconds: reading.now))\t\(reading.now)\t\(mode(reading.clock))"] }
        var table: String { "\(ISO8601.format(milliseconds: reading.now)) (\(words(reading)))\n" }
    }

    /// `clock set|advance|reset`: the clock's new time.
    struct Changed: OutcomeOutput {
        var reading: CKStore.ClockReading
        var verb: String
        var now: Int64

        var json: JSON { ClockCommand.json(reading) }
        var line: String { ISO8601.format(milliseconds: now) }
        var sentence: String { "Clock \(verb): \(ISO8601.format(milliseconds: now)) (\(words(reading)))" }
    }
}
