import CKCore

extension FixturesCommands {
    /// `import`: `{"zones", "records", "assets", "users", "subscriptions", "keyValueStores"}` (counts loaded);
    /// plain one `name<TAB>count` row per count, in that order; for people a sentence.
    struct Imported: OutcomeOutput {
        var summary: FixtureSummary
        /// The container and environment loaded into.
        var container: String
        var environment: Environment

        var json: JSON {
            let s = summary
            return .object(["zones": .int(Int64(s.zones)), "records": .int(Int64(s.records)), "assets": .int(Int64(s.assets)),
                            "users": .int(Int64(s.users)), "subscriptions": .int(Int64(s.subscriptions)),
                            "keyValueStores": .int(Int64(s.keyValueStores)), "kept": .int(Int64(s.kept))])
        }
        var line: String {
            let s = summary
            // Labelled rows, like `container show`: a script greps the count it needs instead of counting columns.
            return [("records", s.records), ("zones", s.zones), ("assets", s.assets), ("users", s.users),
                    ("subscriptions", s.subscriptions), ("keyValueStores", s.keyValueStores), ("kept", s.kept)]
                .map { "\($0.0)\t\($0.1)" }.joined(separator: "\n")
        }
        var sentence: String {
            let s = summary
            func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
            var parts = [count(s.records, "record"), count(s.zones, "zone")]
            if s.subscriptions > 0 { parts.append(count(s.subscriptions, "subscription")) }
            if s.keyValueStores > 0 { parts.append(count(s.keyValueStores, "key-value store")) }
            // Records --replace left in place are named, with why, so nobody takes them for part of the document.
            let kept = s.kept == 0 ? "" : "; kept " + count(s.kept, "public record") + " that the acting user may not delete (its roles lack the type's WRITE grant)"
            return "Imported " + parts.joined(separator: ", ") + " and " + count(s.assets, "asset") + " into \(container) (\(environment.rawValue))" + kept
        }
    }
}
