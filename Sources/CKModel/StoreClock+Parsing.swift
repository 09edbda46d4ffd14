/// How people write the clock's instants (`CK_NOW`, `ck clock set`) and durations (`ck clock advance`).
extension StoreClock {
    /// An instant: milliseconds since 1970 (digits, optionally negative), or an ISO 8601 date or instant
    /// (`2026-01-01`, `2026-01-01T10:00:00Z`); nil when it is neither or outside years 1 to 9999.
    public static func instant(_ text: String) -> Int64? {
        let s = text.trimmingBlanks
        let digits = s.hasPrefix("-") ? s.dropFirst() : Substring(s)
        if !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            guard let v = Int64(s), ISO8601.validRange.contains(v) else { return nil }
            return v
        }
        return ISO8601.parse(s)
    }

    /// A duration in milliseconds: a number with a unit, `ms`, `s`, `m`, `h` or `d` (`30s`, `5m`, `1.5h`, `1d`),
    /// or several (`1h30m`); a bare number is seconds. Nil when it is not one, is negative or exceeds 100 years.
    public static func duration(_ text: String) -> Int64? {
        let units: [(String, Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        var rest = Substring(text.trimmingBlanks)
        guard !rest.isEmpty else { return nil }
        if let bare = Double(rest) { return bare >= 0 && bare <= 3_155_760_000 ? Int64((bare * 1000).rounded()) : nil }
        var total = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { ($0 >= "0" && $0 <= "9") || $0 == "." }
            guard !number.isEmpty, let n = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            // "ms" before "m": the longest unit that matches.
            guard let unit = units.first(where: { rest.hasPrefix($0.0) && !(($0.0 == "m") && rest.hasPrefix("ms")) }) else { return nil }
            rest = rest.dropFirst(unit.0.count)
            total += n * unit.1
        }
        guard total <= 3_155_760_000_000 else { return nil }
        return Int64(total.rounded())
    }

    /// A duration as people read it: `90s` → `1m30s`, `86400000` ms → `1d`.
    public static func describe(duration ms: Int64) -> String {
        if ms == 0 { return "0s" }
        var left = ms < 0 ? -ms : ms
        var parts: [String] = []
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)] where left >= size {
            parts.append("\(left / size)\(unit)")
            left %= size
        }
        if left > 0 { parts.append("\(left)ms") }
        return (ms < 0 ? "-" : "") + parts.joined()
    }
}
