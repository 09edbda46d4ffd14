extension RecordIndex {
    /// The live records of a log whose latest change is after `since`: line offset → sequence number and name.
    func live(_ logPath: String, after since: Int64) throws(CKError) -> [Int: (seq: Int64, name: String)] {
        let log = try key(logPath)
        return try wrap { () throws(SQLiteConnection.Failure) -> [Int: (seq: Int64, name: String)] in
            let s = try db.prepare("SELECT off, seq, name FROM records WHERE log = ?1 AND seq > ?2")
            try s.bind([log, since])
            var out: [Int: (seq: Int64, name: String)] = [:]
            while try s.step() { out[Int(s.int(0))] = (s.int(1), s.text(2)) }
            return out
        }
    }
}
