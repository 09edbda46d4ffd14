import CKModel

/// Read access to a zone's live records: through the index, or by folding the whole log.
package protocol ZoneReader {
    func record(_ name: String) throws(CKError) -> Record?
    /// Names of records whose references with `action` point at `target`.
    func referrers(to target: String, action: Reference.Action) throws(CKError) -> [String]
    func count() throws(CKError) -> Int
    /// Which of `names` are live records, when the reader can tell for many names at once cheaper than one by
    /// one (nil: ask `record` for each).
    func existing(_ names: [String]) throws(CKError) -> Set<String>?
}

/// A zone read whole into memory (no index, or the index is disabled).
package struct FoldedZone: ZoneReader {
    package let live: [String: Record]

    /// The zone after more entries.
    package func applying(_ entries: [LogEntry]) -> FoldedZone {
        var l = live
        for e in entries {
            switch e {
            case .save(_, let r): l[r.recordName] = r
            case .delete(_, let n, _, _, _): l[n] = nil
            }
        }
        return FoldedZone(live: l)
    }

    package func record(_ name: String) throws(CKError) -> Record? { live[name] }

    package func referrers(to target: String, action: Reference.Action) throws(CKError) -> [String] {
        live.values.filter { $0.refers(to: target, action: action) }.map(\.recordName).sorted()
    }

    package func count() throws(CKError) -> Int { live.count }

    package func existing(_ names: [String]) throws(CKError) -> Set<String>? { nil }
}

/// A zone read through `.index.sqlite`: one line read per record asked for.
package struct IndexedZone: ZoneReader {
    package let index: RecordIndex
    package let logPath: String

    package func record(_ name: String) throws(CKError) -> Record? { try index.record(logPath, name: name) }

    package func referrers(to target: String, action: Reference.Action) throws(CKError) -> [String] {
        try index.referrers(logPath, to: target, action: action)
    }

    package func count() throws(CKError) -> Int { try index.count(logPath) }

    package func existing(_ names: [String]) throws(CKError) -> Set<String>? { try index.existing(logPath, names: names) }
}

extension EnvironmentStore {
    /// Opens a zone for reading (and, under the exclusive lock, for appending): the reader, and the state
    /// of the log's end that the next append needs.
    package func openZone(_ logPath: String) throws(CKError) -> (reader: ZoneReader, tail: ZoneLogContents) {
        if let index = try index() {
            let tail = try index.sync(logPath, warnings: &warnings)
            return (IndexedZone(index: index, logPath: logPath), tail)
        }
        let contents = try readLog(logPath)
        return (FoldedZone(live: ZoneLog.fold(contents.entries)), contents)
    }
}
