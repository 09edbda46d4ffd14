import CKModel
import CKStorage

/// The key-value stores in a fixtures document: `"keyValueStores": [{"userRecordName", "keys": {…}}]`, each key
/// in the store file's shape (typed value, modified, deviceID, change). Removed keys are left out. `owns` says
/// which users' stores an export or import covers, as for zones and subscriptions.
extension CKContainer {
    /// Every user's store of an environment, by user record name (call under the environment's lock).
    package func exportKeyValueStores(_ env: EnvironmentStore, owns: (String) -> Bool) throws(CKError) -> JSON {
        var out: [JSON] = []
        for user in env.keyValueUsers() where owns(user) {
            let file = try KVServerFile.read(env.keyValuePath(user), userRecordName: user)
            var keys: [String: JSON] = [:]
            for (k, e) in file.entries where e.value != nil { keys[k] = e.json }
            if keys.isEmpty { continue }
            out.append(.object(["userRecordName": .string(file.userRecordName), "keys": .object(keys)]))
        }
        return .array(out)
    }

    /// Checks `$.keyValueStores` with the rules a write applies (keys, depth and the quotas).
    /// A store without `userRecordName` is `defaultUser`'s (the importing caller's).
    package func validateKeyValueStores(_ json: JSON?, defaultUser: String?, owns: (String) -> Bool, foreign: (String) -> String,
                                problem: (String, String) -> Void) -> [KVServerFile] {
        guard let json else { return [] }
        guard let list = json.arrayValue else { problem("$.keyValueStores", "expected an array"); return [] }
        var out: [KVServerFile] = []
        var seen = Set<String>()
        for (i, item) in list.enumerated() {
            let path = "$.keyValueStores[\(i)]"
            guard let user = item["userRecordName"]?.stringValue ?? defaultUser, Names.isUserRecordName(user) else {
                problem(path + ".userRecordName", "expected a user record name"); continue
            }
            guard owns(user) else { problem(path + ".userRecordName", foreign(user)); continue }
            guard seen.insert(user).inserted else { problem(path, "user \(user) appears twice"); continue }
            guard let keys = item["keys"]?.objectValue else { problem(path + ".keys", "expected an object"); continue }
            var file = KVServerFile(userRecordName: user)
            var ok = true
            for k in keys.keys.sorted() {
                guard let v = keys[k] else { continue }
                do throws(CKError) {
                    // A hand-written key may leave out when, where and in which change it was written.
                    var given = v
                    if case .object(var o) = v {
                        if o["modified"] == nil { o["modified"] = .int(store.now()) }
                        if o["deviceID"] == nil { o["deviceID"] = .string(RecordStamp.deviceID) }
                        if o["change"] == nil { o["change"] = .int(1) }
                        given = .object(o)
                    }
                    var e = try KVEntry(key: k, json: given, path: "\(path).keys.\(Names.describe(k))")
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
    package func hasKeyValueStores(_ env: EnvironmentStore, owns: (String) -> Bool) -> Bool {
        env.keyValueUsers().contains(where: owns)
    }
}
