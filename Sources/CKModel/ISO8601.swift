
/// ISO 8601 dates as CloudKit users write them, to and from milliseconds since 1970 (UTC, proleptic Gregorian).
public enum ISO8601 {
    /// Parses `2026-01-01`, `2026-01-01T10:00`, `2026-01-01T10:00:00Z`, `…T10:00:00.123+02:00` (space for T too).
    /// A date or time without a zone is read as UTC.
    public static func parse(_ s: String) -> Int64? {
        let b = Array(s.utf8)
        var i = 0
        func num(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += n
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue else { return false }
            i += 1
            return true
        }
        guard let y = num(4), expect("-"), let mo = num(2), expect("-"), let d = num(2) else { return nil }
        guard (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y) else { return nil }
        var h = 0, mi = 0, sec = 0, ms = 0, offset = 0
        if i < b.count {
            guard b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: " ") else { return nil }
            i += 1
            guard let hh = num(2), expect(":"), let mm = num(2) else { return nil }
            h = hh; mi = mm
            if expect(":") {
                guard let ss = num(2) else { return nil }
                sec = ss
                if expect(".") || expect(",") {
                    var digits = 0
                    var frac = 0
                    while i < b.count, b[i] >= 48, b[i] <= 57 {
                        if digits < 3 { frac = frac * 10 + Int(b[i] - 48) }
                        digits += 1
                        i += 1
                    }
                    guard digits > 0 else { return nil }
                    for _ in digits..<max(digits, 3) { frac *= 10 }
                    ms = frac
                }
            }
            guard h < 24, mi < 60, sec < 61 else { return nil }
            if i < b.count {
                if expect("Z") || expect("z") {
                } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                    let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
                    i += 1
                    guard let oh = num(2) else { return nil }
                    _ = expect(":")
                    guard let om = num(2), oh < 24, om < 60 else { return nil }
                    offset = sign * (oh * 60 + om)
                } else { return nil }
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(y, mo, d)
        let seconds = Int64(days) * 86400 + Int64(h * 3600 + mi * 60 + sec) - Int64(offset * 60)
        let result = seconds * 1000 + Int64(ms)
        return validRange.contains(result) ? result : nil
    }

    /// The dates ck accepts: years 0001 to 9999, as ISO 8601 can write them.
    public static let validRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// `2026-11-29T13:17:00.000Z` (a value outside `validRange`, from a hand-edited file, prints as ms).
    public static func format(milliseconds t: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(milliseconds: t, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `format(milliseconds:)`'s text as UTF-8, with no `String` made (a change feed formats one a field).
    public static func append(milliseconds t: Int64, to out: inout [UInt8]) {
        guard validRange.contains(t) else { out += "\(t) ms".utf8; return }
        let ms = Int((t % 1000 + 1000) % 1000)
        let secs = (t - Int64(ms)) / 1000
        var days = secs / 86400
        var rem = secs % 86400
        if rem < 0 { rem += 86400; days -= 1 }
        let (y, m, d) = civilFromDays(Int(days))
        let h = Int(rem / 3600), mi = Int(rem % 3600 / 60), s = Int(rem % 60)
        // Fixed-width digits in place (`validRange` holds years 0001 to 9999: always four): interpolating padded
        // strings cost several thousand instructions a date.
        let at = out.count
        out += "0000-00-00T00:00:00.000Z".utf8
        out.withUnsafeMutableBufferPointer { p in
            func put(_ v: Int, _ n: Int, at i: Int) {
                var v = v
                for k in stride(from: at + i + n - 1, through: at + i, by: -1) {
                    p[k] = UInt8(48 + v % 10)
                    v /= 10
                }
            }
            put(y, 4, at: 0); put(m, 2, at: 5); put(d, 2, at: 8); put(h, 2, at: 11); put(mi, 2, at: 14); put(s, 2, at: 17); put(ms, 3, at: 20)
        }
    }

    package static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    package static func daysIn(month m: Int, year y: Int) -> Int {
        switch m {
        case 2: return isLeap(y) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days-from-civil algorithm.
    package static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    package static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
