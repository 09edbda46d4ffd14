/// Reading a zone's change feed from its log without parsing what the answer doesn't need: the start is found by
/// bisection (lines are in sequence order), lines are told apart by their first bytes, and only the records
/// returned are parsed.
extension ZoneLog {
    /// The latest line of each record changed after `since`, oldest first, at most `limit`; `live` is the index's
    /// view of the log's live records changed after `since` (line offset → sequence number and name), and `valid`
    /// where its indexed (whole, acknowledged) part ends. `high` is the newest sequence number read; `pending` counts
    /// the changes after `since` before the limit cut them.
    static func changes(_ path: String, since: Int64, limit: Int?, live: [Int: (seq: Int64, name: String)],
                        valid: Int) throws(CKError) -> (entries: [LogEntry], high: Int64, more: Bool, pending: Int) {
        var saves: [(seq: Int64, offset: Int, length: Int)] = []
        var deletes: [String: LogEntry] = [:]
        var high = since
        let liveNames = Set(live.values.map(\.name))
        try lines(path, from: try offset(after: since, in: path, valid: valid), to: valid) { (offset, line) throws(CKError) -> Bool in
            if let head = head(line), head.save {
                high = max(high, head.seq)
                if head.seq > since, let l = live[offset] { saves.append((l.seq, offset, line.count)) }
                return true
            }
            let entry = try entry(line, path: path, offset: offset)
            high = max(high, entry.seq)
            if entry.seq > since, case .delete(_, let name, _, _, _) = entry, !liveNames.contains(name) {
                if let d = deletes[name], d.seq > entry.seq { return true }
                deletes[name] = entry
            }
            return true
        }
        // Saves and deletions in sequence order; only the records that are returned get parsed.
        var order: [(seq: Int64, offset: Int, length: Int, deletion: LogEntry?)] = saves.map { ($0.seq, $0.offset, $0.length, nil) }
        order += deletes.values.map { ($0.seq, 0, 0, $0) }
        order.sort { $0.seq < $1.seq }
        let pending = order.count
        var more = false
        if let limit, order.count > limit {
            order.removeSubrange(limit...)
            more = true
            high = order.last?.seq ?? since
        }
        var records: [Int: LogEntry] = [:]
        let wanted = order.filter { $0.deletion == nil }
        if let first = wanted.first, let last = wanted.last {
            let offsets = Set(wanted.map(\.offset))
            try lines(path, from: first.offset, to: last.offset + last.length) { (offset, line) throws(CKError) -> Bool in
                if offsets.contains(offset) { records[offset] = try entry(line, path: path, offset: offset) }
                return true
            }
        }
        var entries: [LogEntry] = []
        entries.reserveCapacity(order.count)
        for o in order {
            if let d = o.deletion { entries.append(d) } else if let r = records[o.offset] { entries.append(r) }
        }
        return (entries, high, more, pending)
    }

    static func entry(_ line: ArraySlice<UInt8>, path: String, offset: Int) throws(CKError) -> LogEntry {
        if let fast = LogEntry.decode(line: line) { return fast.entry }
        do {
            return try LogEntry(json: try JSON.parse(utf8: line), path: "\(path) at byte \(offset)")
        } catch {
            throw CKError.internalError("\(path): the line at byte \(offset) is not a log entry",
                                        hint: "the index is stale; delete .index.sqlite and ck rebuilds it, or run 'ck doctor'")
        }
    }

    /// A line's sequence number and whether it is a save, read from the start ck writes every line with
    /// (`{"seq":N,"op":"save"`); nil for a line of another shape (a hand edit), which must be parsed whole.
    static func head(_ line: ArraySlice<UInt8>) -> (seq: Int64, save: Bool)? {
        let prefix = Array(#"{"seq":"#.utf8)
        guard line.count > prefix.count, line.starts(with: prefix) else { return nil }
        var i = line.startIndex + prefix.count
        var seq: Int64 = 0
        let digits = i
        while i < line.endIndex, line[i] >= 0x30, line[i] <= 0x39, i - digits < 18 {
            seq = seq * 10 + Int64(line[i] - 0x30)
            i += 1
        }
        guard i > digits else { return nil }
        let save = Array(#","op":"save""#.utf8), delete = Array(#","op":"delete""#.utf8)
        if line[i...].starts(with: save) { return (seq, true) }
        if line[i...].starts(with: delete) { return (seq, false) }
        return nil
    }

    /// Calls `body` with each line (its offset and bytes, without the newline) starting in `from..<to`, reading
    /// a piece of the file at a time; `body` returns false to stop.
    static func lines(_ path: String, from: Int, to: Int,
                      _ body: (_ offset: Int, _ line: ArraySlice<UInt8>) throws(CKError) -> Bool) throws(CKError) {
        var at = from
        var piece = 1 << 20
        while at < to {
            guard let bytes = try FileIO.readRange(path, from: at, count: piece), !bytes.isEmpty else { return }
            let last = at + bytes.count >= to || bytes.count < piece
            var start = 0
            while start < bytes.count && at + start < to {
                var end = start
                while end < bytes.count, bytes[end] != 0x0A { end += 1 }
                // A line cut by the end of the piece is read whole with the next piece.
                if end == bytes.count && !last { break }
                if end > start, !(try body(at + start, bytes[start..<end])) { return }
                start = end + 1
            }
            if last { return }
            if start == 0 { piece *= 2 } else { at += start }
        }
    }

    /// Where the first line with a sequence number above `since` starts (or a point before it): found by
    /// bisection over the file, since lines are written in sequence order.
    static func offset(after since: Int64, in path: String, valid: Int) throws(CKError) -> Int {
        guard since > 0 else { return 0 }
        var lo = 0, hi = valid
        while hi - lo > 4096 {
            let mid = lo + (hi - lo) / 2
            // The first line starting at or after mid.
            guard let probe = try FileIO.readRange(path, from: mid - 1, count: 4096),
                  let nl = probe.firstIndex(of: 0x0A) else { return lo }
            let start = mid + nl
            guard start < hi, let line = try FileIO.readRange(path, from: start, count: 64), let head = head(line[...]) else { return lo }
            if head.seq > since { hi = start } else { lo = start }
        }
        return lo
    }
}
