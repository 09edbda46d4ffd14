import CKFiles
import CKModel

/// A zone's live records without holding them (issue 28): where each one's line is, read back one at a time.
extension EnvironmentStore {
    /// A zone log's live records (the latest line for a name, unless deleted) as where each one's line is, with
    /// whether `keep` holds for that record: the log is scanned a piece at a time and no record is held.
    package func liveLines(_ path: String, keep: (Record) -> Bool) throws(CKError) -> [String: (offset: Int, length: Int, keep: Bool)] {
        var live: [String: (offset: Int, length: Int, keep: Bool)] = [:]
        let end = try ZoneLog.scan(path, from: 0, firstLine: 1) { (entries, spans) throws(CKError) in
            for (entry, span) in zip(entries, spans) {
                switch entry {
                case .save(_, let r): live[r.recordName] = (span.offset, span.length, keep(r))
                case .delete(_, let name, _, _, _): live[name] = nil
                }
            }
        }
        warnings += end.warnings
        return live
    }

    /// Reads the records on `lines` of a log (places `liveLines` gave), in order, handing each to `body`; the log
    /// is opened once.
    package func readRecords(_ path: String, at lines: [(offset: Int, length: Int)], _ body: (Record) throws(CKError) -> Void) throws(CKError) {
        guard !lines.isEmpty else { return }
        let handle = try ReadHandle(path)
        for line in lines {
            guard let handle, let r = try RecordIndex.read(path, at: line, handle: handle) else {
                throw CKError.internalError("\(path): the record at byte \(line.offset) changed while it was read")
            }
            try body(r)
        }
    }
}
