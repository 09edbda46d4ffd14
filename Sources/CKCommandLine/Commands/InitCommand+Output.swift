import CKCore

extension InitCommand {
    /// `ck init`: `{"store", "created"}`; `created` is false when a store was already there.
    struct Initialized: OutcomeOutput {
        var store: String
        var created: Bool

        var json: JSON { .object(["store": .string(store), "created": .bool(created)]) }
        var line: String { store }
        var sentence: String { created ? "Initialized empty ck store in \(store)" : "A ck store already exists in \(store)" }
    }
}
