import Foundation
import CKModel

/// Storage quotas, kept in container.json: a user's iCloud quota (its private database) and the developer's
/// quota for the public database.
extension CKContainer {
    /// A user's quota in bytes (nil user: the public database's); nil when none is set.
    public func quota(user: String?) throws(CKError) -> Int64? {
        CKContainer.quota(user: user, in: try info())
    }

    /// A quota as container.json `info` has it.
    package static func quota(user: String?, in info: JSON) -> Int64? {
        guard let user else { return info["publicQuota"]?.int64Value }
        return info["users"]?[user]?["quota"]?.int64Value
    }

    /// Sets (or with nil removes) a user's quota, or the public database's when `user` is nil.
    package func setQuotaBody(_ bytes: Int64?, user: String?) throws(CKError) {
        if let bytes, bytes < 0 { throw CKError.invalid("a quota can't be negative") }
        let value: JSON? = bytes.map { .int($0) }
        guard let user else {
            try updateInfo { (o) throws(CKError) in o["publicQuota"] = value }
            return
        }
        try Names.validateUserName(user)
        // A quota for a typo of a listed user would list a new, empty user.
        try refuseNearMiss(user: user, in: try info())
        try updateUser(user, create: true) { (u) throws(CKError) in u["quota"] = value }
    }

    /// Parses a size: bytes, or a number with B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (of 1024).
    public static func parseSize(_ text: String) throws(CKError) -> Int64 {
        let units: [(String, Double)] = [("kib", 1024), ("mib", 1_048_576), ("gib", 1_073_741_824), ("tib", 1_099_511_627_776),
                                         ("kb", 1000), ("mb", 1_000_000), ("gb", 1_000_000_000), ("tb", 1_000_000_000_000), ("b", 1)]
        let t = text.trimmingBlanks.lowercased()
        // Longest units first, so that 5KiB is not read as 5Ki and B.
        let unit = units.first { t.hasSuffix($0.0) }
        let number = t.dropLast(unit?.0.count ?? 0)
        let factor = unit?.1 ?? 1
        guard let n = Double(number.trimmingBlanks), n >= 0, n.isFinite, n * factor < 9.2e18 else {
            throw CKError.invalid("'\(Names.describe(text))' is not a size",
                                  hint: "give bytes (5000000) or a number with a unit: B, KB, MB, GB, TB (powers of 1000), KiB, MiB, GiB, TiB (powers of 1024), e.g. 5MB or 1GiB")
        }
        return Int64((n * factor).rounded(.down))
    }
}
