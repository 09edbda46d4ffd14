import CKModel

/// Injected fault rules of an environment (`faults.json`), for `ck fault`.
extension CKContainer {
    package func faultEngine(_ environment: Environment) -> FaultEngine {
        FaultEngine(environmentStore(environment), now: store.now)
    }

    /// Adds a rule after checking it; an empty id gets the next free `fN`. Returns the rule as stored.
    @discardableResult
    package func addFaultBody(_ rule: FaultRule, environment: Environment) throws(CKError) -> FaultRule {
        try rule.validate()
        if !rule.id.isEmpty { try Names.validateASCIIName(rule.id, what: "fault id") }
        return try faultEngine(environment).update { (book) throws(CKError) -> FaultRule in
            var r = rule
            if r.id.isEmpty {
                while book.rules.contains(where: { $0.id == "f\(book.nextID)" }) { book.nextID += 1 }
                r.id = "f\(book.nextID)"
                book.nextID += 1
            } else if book.rules.contains(where: { $0.id == r.id }) {
                throw CKError(.serverRecordChanged, "a fault rule with id '\(r.id)' already exists", serverErrorCode: "EXISTS",
                              hint: "clear it first with 'ck fault clear \(r.id)', or pick another --id")
            }
            // A probabilistic rule always has a seed, so its sequence can be replayed from the file.
            if r.probability != nil && r.seed == nil { r.seed = UInt64.random(in: 0...UInt64(Int64.max)) }
            book.rules.append(r)
            return r
        }
    }

    /// The rules of an environment, in the order they are checked.
    package func faultsBody(environment: Environment) throws(CKError) -> [FaultRule] {
        let engine = faultEngine(environment)
        // Under the environment's lock: counts a crashed writer left pending are settled first.
        return try engine.env.locked(exclusive: false) { () throws(CKError) -> [FaultRule] in try FaultBook.read(engine.file).rules }
    }

    /// Removes one rule by id, or all of them (nil); returns the ids removed.
    @discardableResult
    package func clearFaultsBody(_ id: String?, environment: Environment) throws(CKError) -> [String] {
        try faultEngine(environment).update { (book) throws(CKError) -> [String] in
            guard let id else {
                defer { book.rules = [] }
                return book.rules.map(\.id)
            }
            guard book.rules.contains(where: { $0.id == id }) else {
                let known = book.rules.map(\.id)
                throw CKError(.unknownItem, "no fault rule '\(Names.describe(id))' in \(environment.rawValue)",
                              hint: known.isEmpty ? "there are no fault rules" : "rules: " + known.joined(separator: ", "))
            }
            book.rules.removeAll { $0.id == id }
            return [id]
        }
    }
}
