
extension Names {
    /// The candidate closest to a mistyped name, when it is close enough to be the one meant: a few edits away
    /// (case, a dropped, added, changed or swapped letter), or the typed text is a prefix of exactly one candidate.
    /// Used for "did you mean" in errors.
    public static func closest(to name: String, among candidates: [String]) -> String? {
        guard !name.isEmpty else { return nil }
        let typed = Array(name.lowercased())
        // Allow about one edit per three letters: "recrod" finds "record", "Nte" finds "Note", "x" finds nothing.
        let allowed = max(1, typed.count / 3)
        var best: (name: String, distance: Int)? = nil
        for c in Set(candidates) where c != name {
            let d = editDistance(typed, Array(c.lowercased()))
            if d <= allowed, d < typed.count, best.map({ d < $0.distance || (d == $0.distance && c < $0.name) }) ?? true {
                best = (c, d)
            }
        }
        if let best { return best.name }
        let prefixed = Set(candidates).filter { $0.lowercased().hasPrefix(name.lowercased()) && $0 != name }
        return typed.count >= 2 && prefixed.count == 1 ? prefixed.first : nil
    }

    /// Edits (insert, delete, replace, swap two neighbours) turning `a` into `b`.
    package static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], before[j - 2] + 1) }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
