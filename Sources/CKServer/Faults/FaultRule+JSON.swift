import CKModel

/// A fault rule as JSON: how `ck fault list -o json` prints it and the control plane (`/_ck/faults`) sends and takes it.
extension FaultRule {
    /// `{"id", "error", "code", "op", "after", "seen", "fired", "afterCommit"}`, plus `recordType`, `recordName`,
    /// `zone`, `database`, `user`, `timesLeft`, `probability` and `seed` (a string) when set, `retryAfter` for a
    /// retryable error, and `throttledUntil` (ms on the store's clock) while a throttling window is open.
    public var json: JSON {
        var o: [String: JSON] = ["id": .string(id), "error": .string(error.name), "code": .int(Int64(error.rawValue)),
                                 "op": .string(op.rawValue), "after": .int(Int64(after)), "seen": .int(Int64(seen)),
                                 "fired": .int(Int64(fired)), "afterCommit": .bool(afterCommit)]
        if let v = recordType { o["recordType"] = .string(v) }
        if let v = recordName { o["recordName"] = .string(v) }
        if let v = zone { o["zone"] = .string(v) }
        if let v = database { o["database"] = .string(v.rawValue) }
        if let v = user { o["user"] = .string(v) }
        if FaultRule.retryable.contains(error) { o["retryAfter"] = .double(retryAfter ?? FaultRule.defaultRetryAfter) }
        if let v = times { o["timesLeft"] = .int(Int64(v)) }
        if let v = probability { o["probability"] = .double(v) }
        if let v = seed { o["seed"] = .string(String(v)) }
        if let v = until { o["throttledUntil"] = .int(v) }
        return .object(o)
    }

    /// A rule to add, as `ck fault add` takes it: `{error, op?, type?, record?, zone?, database?, user?, retryAfter?,
    /// times?, probability?, seed?, after?, afterCommit?, id?}` (`recordType`, `recordName` and `timesLeft`, the
    /// names `json` writes, are taken too). Each key is checked as the command line checks its option; the rule as a
    /// whole is checked by `validate` when added.
    public init(request o: [String: JSON]) throws(CKError) {
        let known: Set<String> = ["error", "op", "type", "recordType", "record", "recordName", "zone", "database", "user", "retryAfter",
                                  "times", "timesLeft", "probability", "seed", "after", "afterCommit", "id",
                                  // What `json` writes and a copied rule may carry: counters start again at 0.
                                  "code", "seen", "fired", "throttledUntil", "container", "environment"]
        if let unknown = o.keys.sorted().first(where: { !known.contains($0) }) {
            throw CKError.invalid("\(unknown): not a fault rule key; keys: error, op, type, record, zone, database, user, retryAfter, times, probability, seed, after, afterCommit, id")
        }
        func string(_ key: String) throws(CKError) -> String? {
            guard let v = o[key], !v.isNull else { return nil }
            guard let s = v.stringValue else { throw CKError.invalid("\(key): expected a string, got \(v.kindName)") }
            return s
        }
        func number(_ key: String) throws(CKError) -> Double? {
            guard let v = o[key], !v.isNull else { return nil }
            guard let d = v.doubleValue, d.isFinite else { throw CKError.invalid("\(key): expected a number, got \(v.kindName)") }
            return d
        }
        func whole(_ key: String, min: Int) throws(CKError) -> Int? {
            guard let d = try number(key) else { return nil }
            guard d == d.rounded(), d >= Double(min), d <= 1e15 else {
                // A whole number is echoed as one (0, not 0.0): the value the user wrote.
                let shown = d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : JSON.double(d).serialized()
                throw CKError.invalid("\(key): expected a whole number of at least \(min), not \(shown)")
            }
            return Int(d)
        }
        let names = FaultRule.injectable.map(\.name)
        guard let name = try string("error") else { throw CKError.invalid("error is required; one of " + names.joined(separator: ", ")) }
        guard let code = CKError.Code(name: name), names.contains(name) else {
            throw CKError.invalid("error: unknown error '\(name)'; one of " + names.joined(separator: ", "))
        }
        self.init(id: try string("id") ?? "", error: code)
        if let v = try string("op") {
            guard let op = Op(rawValue: v) else {
                throw CKError.invalid("op: unknown operation '\(v)'; one of " + Op.allCases.map(\.rawValue).joined(separator: ", "))
            }
            self.op = op
        }
        let type = try string("type"), recordType = try string("recordType")
        self.recordType = type ?? recordType
        let record = try string("record"), recordName = try string("recordName")
        self.recordName = record ?? recordName
        zone = try string("zone")
        if let v = try string("database") {
            guard let d = DatabaseScope(rawValue: v) else { throw CKError.invalid("database: expected public, private or shared, not '\(v)'") }
            database = d
        }
        user = try string("user")
        if let r = try number("retryAfter") {
            guard r >= 0 else { throw CKError.invalid("retryAfter: expected a number of seconds of at least 0, not \(JSON.double(r).serialized())") }
            retryAfter = r
        }
        let times = try whole("times", min: 1), timesLeft = try whole("timesLeft", min: 1)
        self.times = times ?? timesLeft
        if let p = try number("probability") {
            guard p >= 0 && p <= 1 else { throw CKError.invalid("probability: expected a number between 0 and 1, not \(JSON.double(p).serialized())") }
            probability = p
        }
        switch o["seed"] {
        case nil, .null?: break
        case .string(let s)?:
            guard let n = UInt64(s) else { throw CKError.invalid("seed: expected a whole number from 0 to \(UInt64.max), not '\(s)'") }
            seed = n
        case .int(let n)? where n >= 0: seed = UInt64(n)
        case let v?: throw CKError.invalid("seed: expected a whole number from 0 to \(UInt64.max) (a string for large ones), not \(v.serialized())")
        }
        after = try whole("after", min: 0) ?? 0
        switch o["afterCommit"] {
        case nil, .null?: break
        case .bool(let b)?: afterCommit = b
        case let v?: throw CKError.invalid("afterCommit: expected true or false, got \(v.kindName)")
        }
    }
}
