import CKFiles
import CKModel

/// Reading the lines of a change feed's page: the index says where each record's line is, and lines close to each
/// other are read together (a freshly written zone's lines are in feed order), so a page costs a few reads.
extension ZoneLog {
    /// A gap between two lines read in one piece rather than two (reading it costs less than another open).
    package static let pieceGap = 64 << 10
    /// The largest piece read at once: keeps a page of large records from holding much more than itself.
    package static let pieceLimit = 4 << 20

    /// The saves on the lines at `spans`, in the order given.
    package static func entries(_ path: String, at spans: [(offset: Int, length: Int)]) throws(CKError) -> [LogEntry] {
        var out: [LogEntry] = []
        out.reserveCapacity(spans.count)
        try lines(path, at: spans) { (line, offset) throws(CKError) in
            let e = try entry(line, path: path, offset: offset)
            guard case .save = e else { throw stale(path, at: offset) }
            out.append(e)
        }
        return out
    }

    /// Hands `body` each line at `spans` (without its newline) and its offset, in the order given, reading lines
    /// close to each other in one piece.
    package static func lines(_ path: String, at spans: [(offset: Int, length: Int)],
                              _ body: (ArraySlice<UInt8>, Int) throws(CKError) -> Void) throws(CKError) {
        var i = 0
        while i < spans.count {
            let start = spans[i].offset
            var end = start + spans[i].length
            var j = i + 1
            while j < spans.count, spans[j].offset >= end, spans[j].offset - end <= pieceGap,
                  spans[j].offset + spans[j].length - start <= pieceLimit {
                end = spans[j].offset + spans[j].length
                j += 1
            }
            guard let bytes = try FileIO.readRange(path, from: start, count: end - start), bytes.count == end - start else {
                throw stale(path, at: start)
            }
            for k in i..<j {
                let from = spans[k].offset - start
                try body(bytes[from..<from + spans[k].length], spans[k].offset)
            }
            i = j
        }
    }

    package static func entry(_ line: ArraySlice<UInt8>, path: String, offset: Int) throws(CKError) -> LogEntry {
        if let fast = LogEntry.decode(line: line) { return fast.entry }
        do {
            return try LogEntry(json: try JSON.parse(utf8: line), path: "\(path) at byte \(offset)")
        } catch {
            throw stale(path, at: offset)
        }
    }

    package static func stale(_ path: String, at offset: Int) -> CKError {
        CKError.internalError("\(path): the line at byte \(offset) is not a log entry",
                              hint: "the index is stale; delete .index.sqlite and ck rebuilds it, or run 'ck doctor'")
    }
}
