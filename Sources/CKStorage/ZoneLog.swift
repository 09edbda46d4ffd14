import Foundation
import CKFiles
import CKModel

/// One line of a zone log: a saved record or a deletion, with its per-environment sequence number.
public enum LogEntry: Sendable {
    case save(seq: Int64, record: Record)
    case delete(seq: Int64, recordName: String, recordType: String, at: Int64, userRecordName: String?)

    public var seq: Int64 {
        switch self {
        case .save(let s, _), .delete(let s, _, _, _, _): return s
        }
    }

    public var recordName: String {
        switch self {
        case .save(_, let r): return r.recordName
        case .delete(_, let n, _, _, _): return n
        }
    }

    /// The line's JSON object.
    public var json: JSON {
        switch self {
        case .save(let seq, let record):
            return .object(["seq": .int(seq), "op": .string("save"), "record": record.json()])
        case .delete(let seq, let name, let type, let at, let user):
            var o: [String: JSON] = ["seq": .int(seq), "op": .string("delete"), "recordName": .string(name),
                                     "recordType": .string(type), "at": .int(at)]
            if let user { o["userRecordName"] = .string(user) }
            return .object(o)
        }
    }

    package init(json: JSON, path: String) throws(CKError) {
        guard let seq = json["seq"]?.int64Value else { throw CKError.invalid("\(path): missing \"seq\"") }
        switch json["op"]?.stringValue {
        case "save":
            guard let r = json["record"] else { throw CKError.invalid("\(path): missing \"record\"") }
            self = .save(seq: seq, record: try Record(json: r, path: path + ".record"))
        case "delete":
            guard let name = json["recordName"]?.stringValue, let type = json["recordType"]?.stringValue else {
                throw CKError.invalid("\(path): a delete needs recordName and recordType")
            }
            self = .delete(seq: seq, recordName: name, recordType: type, at: json["at"]?.int64Value ?? 0,
                           userRecordName: json["userRecordName"]?.stringValue)
        default:
            throw CKError.invalid("\(path): \"op\" must be \"save\" or \"delete\"")
        }
    }
}

/// A zone log read from disk.
package struct ZoneLogContents {
    package init() {}

    package var entries: [LogEntry] = []
    /// Where each entry's line starts in the file, and its length without the newline.
    package var spans: [(offset: Int, length: Int)] = []
    /// Bytes of whole lines; a torn tail starts here.
    package var validLength = 0
    /// Number of whole lines up to `validLength` (where the next read starts counting).
    package var lines = 0
    /// Size of a torn last line that was ignored (an interrupted write).
    package var tornBytes = 0
    /// The last line is whole but lacks its newline (a hand edit); the next append adds one first.
    package var missingNewline = false
    /// The highest number a gap line carries (`{"seq":N,"op":"gap"}`): numbers up to it were used by lines no
    /// longer in the log (dropped by `ck gc`, or lost from a shortened log), never to be handed out again (0: none).
    package var gapSeq: Int64 = 0
    /// A request of several lines whose last lines are missing though the log ends with a newline (a shortened
    /// log: a partial restore or a hand edit). Its lines are data and are read; `ck doctor` reports it. `lastSeq`
    /// is the number its last line had (a request's lines take consecutive numbers), never to be used again.
    package var shortRequest: (line: Int, expected: Int, present: Int, lastSeq: Int64)? = nil
    package var warnings: [Diagnostic] = []
}

extension ZoneLogContents {
    /// The state of a log's end after `count` lines were appended at `spans`.
    package static func after(_ c: ZoneLogContents, spans: [(offset: Int, length: Int)], count: Int) -> ZoneLogContents {
        var n = ZoneLogContents()
        n.validLength = spans.last.map { $0.offset + $0.length + 1 } ?? c.validLength
        n.lines = c.lines + count
        return n
    }
}

/// Append-only JSON Lines zone logs. The latest line for a record name wins.
package enum ZoneLog {
    /// Reads and checks a log. A bad line in the middle is an error naming path:line; a torn last line is a warning.
    package static func read(_ path: String) throws(CKError) -> ZoneLogContents {
        try read(path, from: 0, firstLine: 1)
    }

    /// Reads a log from byte `offset` (the start of line `firstLine`) to its end.
    package static func read(_ path: String, from offset: Int, firstLine: Int) throws(CKError) -> ZoneLogContents {
        var c = ZoneLogContents()
        c.validLength = offset
        c.lines = firstLine - 1
        guard let bytes = try FileIO.read(path, from: offset) else { return c }
        return try parse(bytes, base: offset, firstLine: firstLine, path: path, into: c)
    }

    /// Reads a log from byte `offset` (the start of line `firstLine`) to its end a piece at a time, handing each
    /// piece's entries to `body` and keeping none: memory stays flat however long the log. Returns the state of
    /// the log's end, with no entries.
    package static func scan(_ path: String, from offset: Int, firstLine: Int, piece first: Int = 4 << 20,
                     _ body: (_ entries: [LogEntry], _ spans: [(offset: Int, length: Int)]) throws(CKError) -> Void) throws(CKError) -> ZoneLogContents {
        var c = ZoneLogContents()
        c.validLength = offset
        c.lines = firstLine - 1
        guard let size = try FileIO.info(path)?.size else { return c }
        var piece = first
        while c.validLength < size {
            guard let bytes = try FileIO.readRange(path, from: c.validLength, count: piece) else { break }
            let final = c.validLength + bytes.count >= size
            // Only whole lines, unless this is the end of the file (where a torn line is judged).
            var end = bytes.count
            if !final {
                while end > 0, bytes[end - 1] != 0x0A { end -= 1 }
            }
            let before = c.validLength
            if end > 0 {
                c = try parse(final ? bytes : Array(bytes[..<end]), base: before, firstLine: c.lines + 1, path: path, into: c, final: final)
                try body(c.entries, c.spans)
                c.entries.removeAll(keepingCapacity: true)
                c.spans.removeAll(keepingCapacity: true)
            }
            if final { break }
            // A line or an unfinished request longer than the piece: read more at once.
            if c.validLength == before { piece *= 2 }
        }
        return c
    }

    /// Parses whole lines read from byte `base`. Not `final`: more of the log follows, so a request of several
    /// lines that is still open is left unread (`validLength` stops before it) for the next piece.
    package static func parse(_ bytes: [UInt8], base: Int, firstLine: Int, path: String, into contents: ZoneLogContents,
                      final: Bool = true) throws(CKError) -> ZoneLogContents {
        var c = contents
        var lineNo = firstLine - 1
        var start = 0
        let n = bytes.count
        // A request of several lines starts with {"batch": count}; a crash inside it drops it whole.
        var group: (offset: Int, line: Int, firstEntry: Int, remaining: Int, count: Int)? = nil
        var linesBeforeGroup = c.lines
        while start < n {
            lineNo += 1
            var end = start
            while end < n, bytes[end] != 0x0A { end += 1 }
            let terminated = end < n
            let line = bytes[start..<end]
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
                c.validLength = base + (terminated ? end + 1 : n)
                c.lines = lineNo
                start = end + 1
                continue
            }
            do throws(CKError) {
                let batch: Int64?
                if let fast = LogEntry.decode(line: line) {
                    c.entries.append(fast.entry)
                    batch = fast.batch
                } else {
                    let json: JSON
                    do { json = try JSON.parse(utf8: line) } catch {
                        throw CKError.corrupt(path: path, line: lineNo, column: error.column, "invalid JSON: \(error.message)")
                    }
                    if let seq = ZoneLog.gapSeq(json) {
                        // Not a record's line: it only keeps numbers of lines no longer there from being used again.
                        c.gapSeq = max(c.gapSeq, seq)
                        c.validLength = base + (terminated ? end + 1 : n)
                        c.lines = lineNo
                        if !terminated { c.missingNewline = true }
                        start = end + 1
                        continue
                    }
                    do {
                        c.entries.append(try LogEntry(json: json, path: "line \(lineNo)"))
                    } catch {
                        throw CKError.corrupt(path: path, line: lineNo, error.reason)
                    }
                    batch = json["batch"]?.int64Value
                }
                c.spans.append((base + start, end - start))
                if let count = batch, count > 1 {
                    linesBeforeGroup = lineNo - 1
                    group = (base + start, lineNo, c.entries.count - 1, Int(count) - 1, Int(count))
                } else if let g = group {
                    group = g.remaining > 1 ? (g.offset, g.line, g.firstEntry, g.remaining - 1, g.count) : nil
                }
                c.validLength = base + (terminated ? end + 1 : n)
                c.lines = lineNo
                if !terminated { c.missingNewline = true }
            } catch {
                guard !terminated else { throw error }
                // The last line has no newline and does not parse: a write that was cut short.
                c.tornBytes = n - start
                c.warnings.append(Diagnostic(place: "\(path):\(lineNo)", "ignoring a torn last line (\(c.tornBytes) bytes, an interrupted write); it was never acknowledged"))
            }
            start = end + 1
        }
        if let g = group, !final {
            c.entries.removeSubrange(g.firstEntry...)
            c.spans.removeSubrange(g.firstEntry...)
            c.validLength = g.offset
            c.lines = linesBeforeGroup
            c.missingNewline = false
        } else if let g = group, c.tornBytes == 0 && !c.missingNewline {
            // The log ends with a whole line: nothing was cut short by a crash (which leaves a line without its
            // newline), so the log was shortened after the request was acknowledged. Its lines are data.
            c.shortRequest = (g.line, g.count, c.entries.count - g.firstEntry, c.entries[g.firstEntry].seq + Int64(g.count - 1))
        } else if let g = group {
            // The request's last lines never reached the disk: none of it was acknowledged.
            c.entries.removeSubrange(g.firstEntry...)
            c.spans.removeSubrange(g.firstEntry...)
            c.tornBytes = base + n - g.offset
            c.validLength = g.offset
            c.lines = linesBeforeGroup
            c.missingNewline = false
            c.warnings.append(Diagnostic(place: "\(path):\(g.line)", "ignoring an incomplete request of several lines (an interrupted write); it was never acknowledged"))
        }
        return c
    }

    /// Appends entries as whole lines and fsyncs (unless `sync` is false: the caller syncs before reporting).
    /// Drops a torn tail first; adds a missing newline first. Returns where each line went.
    @discardableResult
    static func append(_ path: String, _ entries: [LogEntry], after contents: ZoneLogContents,
                       sync: Bool = true) throws(CKError) -> [(offset: Int, length: Int)] {
        if contents.tornBytes > 0 {
            // What is cut was never acknowledged, but whole lines of it are kept where a person can find them.
            if let cut = try FileIO.read(path, from: contents.validLength), cut.contains(0x0A) {
                try FileIO.atomicWrite(try lostFoundPath(for: path, offset: contents.validLength), cut)
            }
            try FileIO.truncate(path, to: contents.validLength)
        }
        try FileIO.makeDirectory(PathName.parent(path))
        var out: [UInt8] = contents.missingNewline ? [0x0A] : []
        var spans: [(offset: Int, length: Int)] = []
        out.reserveCapacity(entries.count * 512)
        for (i, e) in entries.enumerated() {
            let start = out.count
            e.write(into: &out, batch: i == 0 && entries.count > 1 ? entries.count : nil)
            spans.append((contents.validLength + start, out.count - start))
            out.append(0x0A)
        }
        try FileIO.append(path, out, sync: sync)
        return spans
    }

    /// Where the lines cut from a log at `offset` are kept: `<store>/lost+found/<time>/<log path in the store>.cut-<offset>`.
    package static func lostFoundPath(for path: String, offset: Int) throws(CKError) -> String {
        // A log lives at <store>/containers/<id>/<environment>/…; names were validated, so the last "/containers/" is the store's.
        guard let r = path.range(of: "/containers/", options: .backwards) else { return path + ".cut-\(offset)" }
        let root = String(path[..<r.lowerBound])
        let stamp = ISO8601.format(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))).replacingOccurrences(of: ":", with: "-")
        let dest = root + "/lost+found/" + stamp + "/" + String(path[path.index(after: r.lowerBound)...]) + ".cut-\(offset)"
        try FileIO.makeDirectory(PathName.parent(dest))
        return dest
    }

    /// The number a gap line (`{"seq":N,"op":"gap"}`) carries; nil for any other line.
    package static func gapSeq(_ json: JSON) -> Int64? {
        guard json["op"]?.stringValue == gapOp, json["record"] == nil else { return nil }
        return json["seq"]?.int64Value
    }

    /// The `op` of a gap line: `ck gc` ends a compacted log with one when it dropped a higher number than it
    /// kept, and `ck doctor --repair` ends a shortened log with one for the lines it lost.
    package static let gapOp = "gap"

    /// A gap line's bytes, with its newline.
    package static func gapLine(_ seq: Int64) -> [UInt8] { Array(#"{"seq":\#(seq),"op":"\#(gapOp)"}"#.utf8) + [0x0A] }

    /// The highest sequence number in a log (0 when empty or missing), reading only its tail.
    package static func lastSeq(_ path: String) throws(CKError) -> Int64 {
        guard let tail = try FileIO.readTail(path, count: 1 << 16) else { return 0 }
        if let seq = lastSeq(in: tail) { return seq }
        // A line longer than the tail (a large record): read the whole file.
        guard let bytes = try FileIO.read(path) else { return 0 }
        return lastSeq(in: bytes) ?? 0
    }

    package static func lastSeq(in bytes: [UInt8]) -> Int64? {
        // Walk back over whole lines until one parses; the log is ordered by seq.
        var end = bytes.count
        while end > 0 {
            var lineEnd = end
            if bytes[lineEnd - 1] == 0x0A { lineEnd -= 1 }
            var s = lineEnd
            while s > 0, bytes[s - 1] != 0x0A { s -= 1 }
            if lineEnd > s, let json = try? JSON.parse(utf8: bytes[s..<lineEnd]), let seq = json["seq"]?.int64Value {
                return seq
            }
            end = s
        }
        return nil
    }
}

extension ZoneLog {
    /// The live records of a zone log's entries, by name: the latest line for a name wins.
    package static func fold(_ entries: [LogEntry]) -> [String: Record] {
        var live: [String: Record] = [:]
        for e in entries {
            switch e {
            case .save(_, let r): live[r.recordName] = r
            case .delete(_, let n, _, _, _): live[n] = nil
            }
        }
        return live
    }
}
