/// Near misses: a new name so close to an existing one that it is more likely a typo than a new thing. ck refuses
/// to create such a user, device, container or zone implicitly; the explicit `create` commands still make it.
extension Names {
    /// Whether `name` is a near miss of `existing`: a different name that is the same ignoring case, or one edit
    /// away (a letter inserted, deleted, changed, or two neighbours swapped), ignoring case. Edits of digits only
    /// (phone1 → phone2, mac → mac2) name numbered siblings, not typos; and a one-edit miss needs 3 letters or more
    /// ("a" and "b" are not typos of each other).
    public static func isNearMiss(_ name: String, of existing: String) -> Bool {
        guard name != existing else { return false }
        let a = Array(name.lowercased()), b = Array(existing.lowercased())
        if a == b { return true }
        guard min(a.count, b.count) >= 3, let edited = singleEdit(a, b) else { return false }
        return !edited.allSatisfy(\.isNumber)
    }

    /// The existing names `name` is a near miss of, sorted; empty when `name` is one of them.
    public static func nearMisses(of name: String, among existing: [String]) -> [String] {
        if existing.contains(name) { return [] }
        return Set(existing).filter { isNearMiss(name, of: $0) }.sorted()
    }

    /// The characters one edit touches turning `a` into `b`, or nil when they are not exactly one edit apart
    /// (insert, delete, substitute, or swap of two adjacent characters).
    package static func singleEdit(_ a: [Character], _ b: [Character]) -> [Character]? {
        if a.count == b.count {
            let diffs = a.indices.filter { a[$0] != b[$0] }
            if diffs.count == 1 { return [a[diffs[0]], b[diffs[0]]] }
            if diffs.count == 2, diffs[1] == diffs[0] + 1, a[diffs[0]] == b[diffs[1]], a[diffs[1]] == b[diffs[0]] {
                return [a[diffs[0]], a[diffs[1]]]
            }
            return nil
        }
        let (short, long) = a.count < b.count ? (a, b) : (b, a)
        guard long.count == short.count + 1 else { return nil }
        var i = 0
        while i < short.count && short[i] == long[i] { i += 1 }
        return short[i...].elementsEqual(long[(i + 1)...]) ? [long[i]] : nil
    }

    /// The refusal of a name that is a near miss: `what` ("user", "device", "container", "zone") named `name`
    /// does not exist `place` ("in container X"), the close ones are named, and `create` is the explicit way.
    public static func nearMissError(_ code: CKError.Code, what: String, name: String, place: String, close: [String],
                                     create: String) -> CKError {
        let quoted = alternatives(close)
        return CKError(code, "\(what) '\(describe(name))' does not exist \(place), and ck does not create it on first use: it is close to \(quoted)",
                       hint: "did you mean \(quoted)? To make a new \(what) '\(name)' anyway, '\(create)'")
    }

    /// Names offered as alternatives in a message: `'a' or 'b'`.
    public static func alternatives(_ names: [String]) -> String {
        names.map { "'\($0)'" }.joined(separator: " or ")
    }
}
