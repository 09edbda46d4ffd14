import CKModel
import CKStorage

/// `faults.json` of one environment: the injected fault rules, in the order they are checked, and their counters.
/// The file and its lock are `FaultsFile` (which says how the locks nest).
package struct FaultBook {
    package var nextID = 1
    package var rules: [FaultRule] = []

    /// Reads the rules; a missing file holds none. A damaged file is reported with its path and line.
    package static func read(_ file: FaultsFile) throws(CKError) -> FaultBook {
        guard let bytes = try file.read() else { return FaultBook() }
        return try parse(bytes, path: file.path)
    }

    /// The rules in `bytes` (faults.json's contents; `path` names it in errors).
    package static func parse(_ bytes: [UInt8], path: String) throws(CKError) -> FaultBook {
        let json: JSON
        do { json = try JSON.parse(utf8: bytes) } catch {
            throw CKError.corrupt(path: path, line: error.line, column: error.column, "invalid JSON: \(error.message); no fault rule was applied")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        func fail(_ why: String, near needle: String?) -> CKError {
            CKError.corrupt(path: path, line: needle.flatMap { line(of: $0, in: text) } ?? 1, "\(why); no fault rule was applied")
        }
        guard case .object(let o) = json else { return FaultBook() }
        var book = FaultBook()
        book.nextID = Int(o["nextID"]?.int64Value ?? 1)
        for (i, r) in (o["rules"]?.arrayValue ?? []).enumerated() {
            let id = r["id"]?.stringValue
            let near = id.map { JSON.string($0).serialized() }
            guard let id, !id.isEmpty else { throw fail("rules[\(i)]: a rule needs an \"id\"", near: "\"rules\"") }
            guard let name = r["error"]?.stringValue, let code = CKError.Code(name: name) else {
                throw fail("rules[\(i)] (\(id)): \"error\" must name a CloudKit error", near: near)
            }
            var rule = FaultRule(id: id, error: code)
            if let op = r["op"]?.stringValue {
                guard let o = FaultRule.Op(rawValue: op) else { throw fail("rules[\(i)] (\(id)): unknown op '\(op)'", near: near) }
                rule.op = o
            }
            rule.recordType = r["recordType"]?.stringValue
            rule.recordName = r["recordName"]?.stringValue
            rule.zone = r["zone"]?.stringValue
            if let db = r["database"]?.stringValue {
                guard let d = DatabaseScope(rawValue: db) else { throw fail("rules[\(i)] (\(id)): unknown database '\(db)'", near: near) }
                rule.database = d
            }
            rule.user = r["user"]?.stringValue
            rule.retryAfter = r["retryAfter"]?.doubleValue
            rule.times = r["times"]?.int64Value.map { Int($0) }
            rule.probability = r["probability"]?.doubleValue
            rule.seed = r["seed"]?.stringValue.flatMap { UInt64($0) }
            rule.after = Int(r["after"]?.int64Value ?? 0)
            rule.afterCommit = r["afterCommit"]?.boolValue ?? false
            rule.seen = Int(r["seen"]?.int64Value ?? 0)
            rule.draws = Int(r["draws"]?.int64Value ?? 0)
            rule.fired = Int(r["fired"]?.int64Value ?? 0)
            rule.until = r["until"]?.int64Value
            do throws(CKError) { try rule.validate() } catch { throw fail("rules[\(i)] (\(id)): \(error.reason)", near: near) }
            if rule.probability != nil && rule.seed == nil { throw fail("rules[\(i)] (\(id)): a probabilistic rule needs its \"seed\"", near: near) }
            book.rules.append(rule)
        }
        return book
    }

    /// The 1-based line of the first occurrence of `needle`.
    package static func line(of needle: String, in text: String) -> Int? {
        guard let r = text.range(of: needle) else { return nil }
        return text[..<r.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
    }

    package var json: JSON {
        .object(["format": .int(1), "nextID": .int(Int64(nextID)), "rules": .array(rules.map { r in
            var o: [String: JSON] = ["id": .string(r.id), "error": .string(r.error.name), "op": .string(r.op.rawValue),
                                     "after": .int(Int64(r.after)), "seen": .int(Int64(r.seen)), "fired": .int(Int64(r.fired))]
            if let v = r.recordType { o["recordType"] = .string(v) }
            if let v = r.recordName { o["recordName"] = .string(v) }
            if let v = r.zone { o["zone"] = .string(v) }
            if let v = r.database { o["database"] = .string(v.rawValue) }
            if let v = r.user { o["user"] = .string(v) }
            if let v = r.retryAfter { o["retryAfter"] = .double(v) }
            if let v = r.times { o["times"] = .int(Int64(v)) }
            if let v = r.probability { o["probability"] = .double(v) }
            // A string: a 64-bit seed does not fit JSON's numbers exactly.
            if let v = r.seed { o["seed"] = .string(String(v)) }
            if r.probability != nil { o["draws"] = .int(Int64(r.draws)) }
            if r.afterCommit { o["afterCommit"] = .bool(true) }
            if let v = r.until { o["until"] = .int(v) }
            return .object(o)
        })])
    }

    /// Advances the counters of the rules that match `point` and returns the first that fires, with the time left
    /// in its throttling window (ms; nil for a rule that does not throttle); spent rules go. `now` is the store's
    /// clock: a throttling rule that fired keeps refusing until its window ends, and `times` counts windows.
    package mutating func consume(_ point: FaultPoint, now: Int64) -> (rule: FaultRule, left: Int64?)? {
        var i = 0
        while i < rules.count {
            defer { i += 1 }
            guard rules[i].matches(point) else { continue }
            if let until = rules[i].until {
                if now < until {
                    // Still throttled: the same refusal, with the time left, counting no new operation.
                    rules[i].fired += 1
                    return (rules[i], until - now)
                }
                // The window is over: it was one of the rule's `times`.
                rules[i].until = nil
                if let t = rules[i].times {
                    if t <= 1 {
                        rules.remove(at: i)
                        i -= 1
                        continue
                    }
                    rules[i].times = t - 1
                }
            }
            rules[i].seen += 1
            if rules[i].seen <= rules[i].after { continue }
            if let p = rules[i].probability {
                let d = FaultRule.draw(seed: rules[i].seed ?? 0, index: rules[i].draws)
                rules[i].draws += 1
                if d >= p { continue }
            }
            rules[i].fired += 1
            if rules[i].throttles, let wait = rules[i].wait {
                // The window's count is spent when it ends, so `times` still shows it while it lasts.
                let window = Int64((wait * 1000).rounded(.up))
                rules[i].until = now + window
                return (rules[i], window)
            }
            let hit = rules[i]
            if let t = rules[i].times {
                if t <= 1 { rules.remove(at: i) } else { rules[i].times = t - 1 }
            }
            return (hit, nil)
        }
        return nil
    }
}
