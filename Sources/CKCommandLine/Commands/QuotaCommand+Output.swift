import CKCore

extension QuotaCommand {
    /// `quota set`: `{"user", "quota"}`; `user` is null for the public database, `quota` null for none.
    struct Limit: OutcomeOutput {
        var user: String?
        var quota: Int64?

        var json: JSON { .object(["user": user.map { .string($0) } ?? .null, "quota": quota.map { .int($0) } ?? .null]) }
        var line: String { quota.map(String.init) ?? "none" }
        var sentence: String { "Quota of \(whose(user)): " + (quota.map { "\(format($0)) (\($0) bytes)" } ?? "none") }
    }

    /// `quota show`: `{"user", "quota", "used", "byZone": {zone: bytes}, "byRecordType": {type: bytes}}`.
    struct Usage: CommandOutput {
        var user: String?
        var usage: QuotaUsage

        var json: JSON {
            func map(_ d: [String: Int64]) -> JSON { .object(d.mapValues { .int($0) }) }
            return .object(["user": user.map { .string($0) } ?? .null, "quota": usage.limit.map { .int($0) } ?? .null,
                            "used": .int(usage.used), "byZone": map(usage.byZone), "byRecordType": map(usage.byType)])
        }

        var plain: [String] {
            let u = usage
            return ["quota\t" + (u.limit.map(String.init) ?? "none"), "used\t\(u.used)"]
                + u.byZone.keys.sorted().map { "zone\t\($0)\t\(u.byZone[$0] ?? 0)" }
                + u.byType.keys.sorted().map { "type\t\($0)\t\(u.byType[$0] ?? 0)" }
        }

        var table: String {
            let u = usage
            let limit = u.limit.map { "\(format($0)) (\($0) bytes)" } ?? "none"
            var text = "Quota of \(whose(user)): \(limit); used \(format(u.used)) (\(u.used) bytes)\n"
            var t = Table(["BY", "NAME", "BYTES"])
            for z in u.byZone.keys.sorted() { t.add(["zone", z, String(u.byZone[z] ?? 0)]) }
            for n in u.byType.keys.sorted() { t.add(["type", n, String(u.byType[n] ?? 0)]) }
            if !u.byZone.isEmpty { text += t.aligned() }
            return text
        }
    }
}
