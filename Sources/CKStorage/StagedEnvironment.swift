import CKFiles
import CKModel
import CKSchema

/// The new versions of an environment's files and trees while `EnvironmentStore.replaceData` builds them, by
/// their names in the environment ("public", "private/<user>", "schema.json", …): nothing is in the store until
/// the swap commits. A name that was not staged is skipped.
struct StagedEnvironment {
    /// Staged path by name.
    let paths: [String: String]

    /// Starts an empty tree.
    func makeTree(_ name: String) throws(CKError) {
        if let p = paths[name] { try FileIO.makeDirectory(p) }
    }

    func writeJSON(_ name: String, _ json: JSON) throws(CKError) {
        if let p = paths[name] { try JSONFile.write(p, json) }
    }

    func writeBytes(_ name: String, _ bytes: [UInt8]) throws(CKError) {
        if let p = paths[name] { try FileIO.atomicWrite(p, bytes) }
    }

    func writeSchema(_ schema: Schema) throws(CKError) { try writeJSON("schema.json", schema.json) }

    func writeCatalog(_ catalog: ZoneCatalog) throws(CKError) { try writeJSON("zones.json", catalog.json) }

    func write(_ file: SubscriptionFile) throws(CKError) {
        if let p = paths["subscriptions.json"] { try file.write(p) }
    }

    /// Writes a user's key-value store at `name`.
    func write(_ file: KVServerFile, as name: String) throws(CKError) {
        var file = file
        if let p = paths[name] { try file.write(p) }
    }

    /// Appends `entries` to the log at `name` (a path under a staged tree), in requests of at most `chunk` lines;
    /// `written` is told the lines written after each request.
    func appendLog(_ name: String, _ entries: [LogEntry], chunk: Int, written: (Int) -> Void) throws(CKError) {
        // The staged tree that holds this log: "public", "private" or "private/<owner>" (the deepest staged).
        guard let top = paths.keys.filter({ name.hasPrefix($0 + "/") }).max(by: { $0.count < $1.count }),
              let root = paths[top] else { return }
        let path = root + name.dropFirst(top.count)
        try FileIO.makeDirectory(PathName.parent(path))
        var tail = ZoneLogContents()
        for start in stride(from: 0, to: entries.count, by: chunk) {
            let part = Array(entries[start..<min(start + chunk, entries.count)])
            let spans = try ZoneLog.append(path, part, after: tail, sync: false)
            tail = ZoneLogContents.after(tail, spans: spans, count: part.count)
            written(part.count)
        }
    }

    /// Appends one request's lines to the log at `name` (a path under a staged tree) after `tail`, the state
    /// the previous request left (an empty one for a new log); returns the state after these lines.
    func appendRequest(_ name: String, _ entries: [LogEntry], after tail: ZoneLogContents) throws(CKError) -> ZoneLogContents {
        guard let top = paths.keys.filter({ name.hasPrefix($0 + "/") }).max(by: { $0.count < $1.count }),
              let root = paths[top] else { return tail }
        let path = root + name.dropFirst(top.count)
        let spans = try ZoneLog.append(path, entries, after: tail, sync: false)
        return ZoneLogContents.after(tail, spans: spans, count: entries.count)
    }
}
