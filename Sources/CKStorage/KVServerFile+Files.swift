import Foundation
import CKFiles
import CKModel

extension KVServerFile {
    /// Reads a user's file; a missing one is an empty store.
    package static func read(_ path: String, userRecordName: String) throws(CKError) -> KVServerFile {
        guard let bytes = try FileIO.read(path) else { return KVServerFile(userRecordName: userRecordName) }
        let json: JSON
        do { json = try JSON.parse(utf8: bytes) } catch {
            throw CKError.corrupt(path: path, line: error.line, column: error.column, "invalid JSON: \(error.message)")
        }
        return try KVServerFile(json: json, path: path, text: bytes)
    }

    mutating func write(_ path: String) throws(CKError) {
        if storeID.isEmpty { storeID = UUID().uuidString }
        try FileIO.makeDirectory(PathName.parent(path))
        try JSONFile.write(path, json)
    }
}

extension EnvironmentStore {
    /// Where the environment keeps its users' key-value stores.
    package var keyValueDir: String { dir + "/kv" }

    /// A user's key-value store file. User record names were validated, so the path stays inside the store.
    package func keyValuePath(_ userRecordName: String) -> String { keyValueDir + "/" + userRecordName + ".json" }
}
