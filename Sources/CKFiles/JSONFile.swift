import CKModel

/// Reading and writing the store's whole-file JSON documents (ck.json, container.json, schema.json, zones.json).
package enum JSONFile {
    /// The parsed document, or nil when the file does not exist. A broken file is reported with path:line:column.
    package static func read(_ path: String) throws(CKError) -> JSON? {
        guard let bytes = try FileIO.read(path) else { return nil }
        do {
            return try JSON.parse(utf8: bytes)
        } catch {
            throw CKError.corrupt(path: path, line: error.line, column: error.column, "invalid JSON: \(error.message)")
        }
    }

    /// Reads an object document; anything else is reported as corrupt.
    package static func readObject(_ path: String) throws(CKError) -> [String: JSON]? {
        guard let json = try read(path) else { return nil }
        guard case .object(let o) = json else {
            throw CKError.corrupt(path: path, line: 1, column: 1, "expected a JSON object, found \(json.kindName)")
        }
        return o
    }

    /// Writes a document atomically, pretty-printed with a final newline.
    package static func write(_ path: String, _ json: JSON) throws(CKError) {
        try FileIO.atomicWrite(path, Array((json.pretty() + "\n").utf8))
    }
}
