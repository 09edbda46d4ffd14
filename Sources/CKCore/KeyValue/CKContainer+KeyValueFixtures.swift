/// The key-value stores in a fixtures document: `"keyValueStores": [{"userRecordName", "keys": {…}}]`, each key
/// in the store file's shape (typed value, modified, deviceID, change). Removed keys are left out.
extension CKContainer {
    /// Every user's store of an environment, by user record name (call under the environment's lock).
    func exportKeyValueStores(_ env: EnvironmentStore) throws(CKError) -> JSON {
        var out: [JSON] = []
        for name in FileIO.list(env.keyValueDir) where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let user = String(name.dropLast(5))
            let file = try KVServerFile.read(env.keyValueDir + "/" + name, userRecordName: user)
            var keys: [String: JSON] = [:]
            for (k, e) in file.entries where e.value != nil { keys[k] = e.json }
            if keys.isEmpty { continue }
            out.append(.object(["userRecordName": .string(file.userRecordName), "keys": .object(keys)]))
        }
        return .array(out)
    }

    /// Checks `$.keyValueStores` with the rules a write applies (keys, depth and the quotas).
    func validateKeyValueStores(_ json: JSON?, problem: (String, String) -> Void) -> [KVServerFile] {
        guard let json else { return [] }
        guard let list = json.arrayValue else { problem("$.keyValueStores", "expected an array"); return [] }
        var out: [KVServerFile] = []
        var seen = Set<String>()
        for (i, item) in list.enumerated() {
            let path = "$.keyValueStores[\(i)]"
            guard let user = item["userRecordName"]?.stringValue, user == CKContainer.userRecordName(for: user) else {
                problem(path + ".userRecordName", "expected a user record name"); continue
            }
            guard seen.insert(user).inserted else { problem(path, "user \(user) appears twice"); continue }
            guard let keys = item["keys"]?.objectValue else { problem(path + ".keys", "expected an object"); continue }
            var file = KVServerFile(userRecordName: user)
            var ok = true
            for k in keys.keys.sorted() {
                guard let v = keys[k] else { continue }
                do throws(CKError) {
                    var e = try KVEntry(key: k, json: v, path: "\(path).keys.\(Names.describe(k))")
                    guard let value = e.value else { throw CKError.invalid("\(path).keys.\(Names.describe(k)): a removed key has no place in fixtures") }
                    if let why = KVLimits.violation(key: k, value: value, live: file.live) { throw CKError.invalid("\(path).keys.\(Names.describe(k)): \(why)") }
                    e.change = max(e.change, 1)
                    file.change = max(file.change, e.change)
                    file.entries[k] = e
                } catch {
                    ok = false
                    problem("\(path).keys.\(Names.describe(k))", error.reason)
                }
            }
            if ok { out.append(file) }
        }
        return out
    }

    /// Whether an environment holds any user's key-value store (call under the environment's lock).
    func hasKeyValueStores(_ env: EnvironmentStore) -> Bool {
        FileIO.list(env.keyValueDir).contains { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
    }

    /// Writes imported stores (call under the environment's exclusive lock); `replace` first removes the old ones.
    func writeKeyValueStores(_ files: [KVServerFile], env: EnvironmentStore, replace: Bool) throws(CKError) {
        if replace { try FileIO.removeTree(env.keyValueDir) }
        for var f in files { try f.write(env.keyValuePath(f.userRecordName)) }
    }
}
