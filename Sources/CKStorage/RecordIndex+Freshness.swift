import CKFiles
import CKModel
import CKSQLite

/// How the index tells that a log is still the one it indexed. The file's inode and times are the quick
/// test; when they differ (a store copied with `cp -a` or `cp -r`, a CI cache restored) the indexed bytes
/// are summed again and compared, so a copy is not indexed again but a log edited at the same length is.
extension RecordIndex {
    /// FNV-1a's starting value: the sum of no bytes.
    static let emptySum: UInt64 = 0xcbf2_9ce4_8422_2325

    /// FNV-1a (64-bit) of a log's bytes in [from, to), continuing `seed` (the sum of the bytes before
    /// `from`), so an append extends the sum without reading the log again. Nil when the log is shorter.
    /// Not cryptographic: it tells a changed log from an unchanged one, it does not resist a forger.
    static func contentSum(_ logPath: String, from: Int, to: Int, seed: UInt64) -> UInt64? {
        guard let handle = try? ReadHandle(logPath) else { return from == to ? seed : nil }
        return contentSum(handle, from: from, to: to, seed: seed)
    }

    /// `contentSum` through a log already open.
    static func contentSum(_ handle: ReadHandle, from: Int, to: Int, seed: UInt64) -> UInt64? {
        guard from <= to, handle.size >= to else { return nil }
        var sum = seed
        var at = from
        while at < to {
            // A megabyte at a time: summing a large log keeps memory flat.
            guard let chunk = try? handle.read(from: at, count: min(1 << 20, to - at)), !chunk.isEmpty else { return nil }
            chunk.withUnsafeBufferPointer { bytes in
                for b in bytes { sum = (sum ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
            }
            at += chunk.count
        }
        return sum
    }

    /// Whether the first `valid` bytes of a log still sum to what the index recorded (nil: nothing recorded).
    func sameContent(_ logPath: String, valid: Int, sum: Int64?) -> Bool {
        guard let sum else { return false }
        return RecordIndex.contentSum(logPath, from: 0, to: valid, seed: RecordIndex.emptySum).map { Int64(bitPattern: $0) } == sum
    }

    /// The sum and tail hash to record for a log now indexed up to `valid`, read through one open of the log. The
    /// sum extends the one this process knows, or the recorded one, when that covers a prefix; else the whole
    /// indexed part is summed afresh. The tail hash is of the 64 bytes before `valid` (a hand edit of the indexed
    /// part usually changes them).
    func newSumAndTail(_ log: Int64, logPath: String, valid: Int) throws(SQLiteConnection.Failure) -> (sum: Int64?, tail: String) {
        var from = 0
        var seed = RecordIndex.emptySum
        if let known = sums[log], known.valid <= valid {
            from = known.valid
            seed = UInt64(bitPattern: known.sum)
        } else {
            let s = try db.prepare("SELECT valid, sum FROM logs WHERE log = ?1")
            try s.bind([log])
            if try s.step(), !s.isNull(0), !s.isNull(1), Int(s.int(0)) <= valid {
                from = Int(s.int(0))
                seed = UInt64(bitPattern: s.int(1))
            }
            s.reset()
        }
        sums[log] = nil
        guard valid > 0, let handle = try? ReadHandle(logPath) else { return (valid == 0 ? Int64(bitPattern: seed) : nil, "") }
        let sum = RecordIndex.contentSum(handle, from: from, to: valid, seed: seed).map { Int64(bitPattern: $0) }
        if let sum { sums[log] = (valid, sum) }
        let start = max(0, valid - 64)
        let tail = (try? handle.read(from: start, count: valid - start)).map { SHA256.hex($0) } ?? ""
        return (sum, tail)
    }

    /// Records a log's new inode and times once its content was found unchanged (the next command's quick test passes).
    func restamp(_ log: Int64, info: (size: Int, inode: Int64, mtime: Int64, ctime: Int64)) throws(SQLiteConnection.Failure) {
        try db.prepare("UPDATE logs SET inode = ?2, mtime = ?3, ctime = ?4 WHERE log = ?1").run([log, info.inode, info.mtime, info.ctime])
    }
}
