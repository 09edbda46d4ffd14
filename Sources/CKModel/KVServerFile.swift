
/// The contents of `<environment>/kv/<userRecordName>.json`: one user's key-value store on the server, rewritten whole
/// (temp file, fsync, rename) under the environment's exclusive lock.
package struct KVServerFile {
    package static let format: Int64 = 1

    package var userRecordName: String
    /// Made with the file: a device that synced with another file of this name (the store was replaced by an
    /// import, or removed) sees a new ID and fetches the whole store again instead of trusting its token.
    package var storeID: String
    /// The last change number given out; each write takes the next.
    package var change: Int64 = 0
    package var entries: [String: KVEntry] = [:]

    /// An empty store, as a user without a file has; its ID is made when it is first written.
    package init(userRecordName: String) {
        self.userRecordName = userRecordName
        storeID = ""
    }

    /// The live values, by key.
    package var live: [String: KVValue] {
        var out: [String: KVValue] = [:]
        for (k, e) in entries { if let v = e.value { out[k] = v } }
        return out
    }

    package var json: JSON {
        .object(["format": .int(KVServerFile.format), "userRecordName": .string(userRecordName), "storeID": .string(storeID),
                 "change": .int(change),
                 "keys": .object(entries.mapValues(\.json))])
    }

    /// Reads a file; `text` (when given) lets a shape error name its line.
    package init(json: JSON, path: String, text: [UInt8]? = nil) throws(CKError) {
        guard case .object(let o) = json else { throw CKError.corrupt(path: path, line: 1, column: 1, "expected a JSON object") }
        if let f = o["format"]?.int64Value, f > KVServerFile.format {
            throw CKError(.incompatibleVersion, "\(path): key-value store format \(f) is newer than this ck understands (\(KVServerFile.format))",
                          hint: "upgrade ck")
        }
        guard let user = o["userRecordName"]?.stringValue, let change = o["change"]?.int64Value, case .object(let keys)? = o["keys"] else {
            throw CKError.corrupt(path: path, line: 1, "needs userRecordName, change and keys")
        }
        userRecordName = user
        storeID = o["storeID"]?.stringValue ?? ""
        self.change = change
        for (k, v) in keys {
            do throws(CKError) {
                let e = try KVEntry(key: k, json: v, path: "keys." + Names.describe(k))
                guard e.change <= change else { throw CKError.invalid("keys.\(Names.describe(k)): change \(e.change) is after the file's change \(change)") }
                entries[k] = e
            } catch {
                throw CKError.corrupt(path: path, line: text.flatMap { KVServerFile.line(of: k, in: $0) }, error.reason)
            }
        }
    }

    /// The line a key of `keys` starts on in a file ck wrote (pretty-printed, the key four spaces in).
    package static func line(of key: String, in text: [UInt8]) -> Int? {
        var quoted: [UInt8] = []
        JSON.writeString(key, into: &quoted)
        let needle = Array("\n    ".utf8) + quoted + Array(":".utf8)
        guard needle.count <= text.count else { return nil }
        var line = 1
        var i = 0
        while i + needle.count <= text.count {
            if text[i] == 0x0A {
                if Array(text[i..<(i + needle.count)]) == needle { return line + 1 }
                line += 1
            }
            i += 1
        }
        return nil
    }
}
