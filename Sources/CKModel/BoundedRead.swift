import Glibc

/// The limits under which ck reads what a user gives it (a file argument, stdin, an `@file` value), and the one
/// reader that keeps to them. Each is stated in docs/cli.md §4.1.
package enum InputLimit {
    /// A record's data, assets excluded (Web Services Data Size Limits: 1 MB).
    package static let record = 1_048_576
    /// One JSON text that carries one record (a `--batch` line, a `--fields-file`): the record's 1 MB with room
    /// for JSON's encoding of it (base64 bytes take 4/3, escaped strings more).
    package static let recordJSON = 4 * record
    /// How `recordJSON` is named in a refusal.
    package static let recordJSONName = "the most ck reads for one record's JSON (a record holds at most 1 MB of data)"
    /// A whole `--batch` file or a fixtures document for `ck import`: no CloudKit limit applies to either, so this
    /// is ck's own bound, far above a 100k-record export (about 110 MB).
    package static let document = 512 * 1_048_576
    /// A schema file (`.ckdb`) and a PEM key: text a person writes, far smaller than this.
    package static let text = 16 * 1_048_576

    /// `bytes` as people say it: "1 MB" for a whole number of MB, else the bytes.
    package static func describe(_ bytes: Int) -> String {
        bytes % 1_048_576 == 0 ? "\(bytes / 1_048_576) MB" : "\(bytes) bytes"
    }
}

/// Reads a user's input up to a limit, refusing it with `limitExceeded` as soon as one byte over was seen: it
/// never holds more than the limit and one chunk, so `/dev/zero` or an endless pipe can't exhaust memory.
package enum BoundedRead {
    /// The refusal of `input` (a file name or `<stdin>`) for passing `limit` bytes, which `limitName` names.
    package static func tooLarge(_ input: String, limit: Int, limitName: String) -> CKError {
        CKError(.limitExceeded, "\(input) is larger than \(limit) bytes (\(InputLimit.describe(limit))), \(limitName)",
                hint: "split the input, or give a smaller one")
    }

    /// A line of `input` over `lineLimit` bytes: the `number`th.
    package static func lineTooLong(_ input: String, line number: Int, lineLimit: Int) -> CKError {
        CKError(.limitExceeded, "\(input):\(number): the line is longer than \(lineLimit) bytes (\(InputLimit.describe(lineLimit))), \(InputLimit.recordJSONName)",
                hint: "each line carries one record, and a record holds at most 1 MB of data (assets excluded)")
    }

    /// Reads `fd` to its end. More than `limit` bytes in all, or (when `lineLimit` is given) a line of more than
    /// `lineLimit` bytes (a JSON Lines input: one record a line), is refused at once; a regular file over the limit is refused from its size, unread.
    package static func read(fd: Int32, input: String, limit: Int, limitName: String,
                             lineLimit: Int? = nil) throws(CKError) -> [UInt8] {
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) > limit {
            throw tooLarge(input, limit: limit, limitName: limitName)
        }
        var out: [UInt8] = []
        var lines = LineCheck(input: input, lineLimit: lineLimit)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            // Never asks for more than one byte past the limit: that byte alone proves the input too large.
            let want = min(chunk.count, limit + 1 - out.count)
            let n = chunk.withUnsafeMutableBytes { b -> Int in
                guard let base = b.baseAddress else { return 0 }
                return Glibc.read(fd, base, want)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw CKError(.invalidArguments, "cannot read \(input): \(String(cString: strerror(errno)))")
            }
            if n == 0 { return out }
            try lines.scan(chunk[0..<n])
            out.append(contentsOf: chunk[0..<n])
            if out.count > limit { throw tooLarge(input, limit: limit, limitName: limitName) }
        }
    }

    /// Opens `path` (following links: it is the user's own file, outside the store) and reads it as `read(fd:…)`
    /// does; nil when it can't be opened or is a directory.
    package static func read(path: String, input: String, limit: Int, limitName: String,
                             lineLimit: Int? = nil) throws(CKError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) != S_IFDIR else { return nil }
        return try read(fd: fd, input: input, limit: limit, limitName: limitName, lineLimit: lineLimit)
    }

    /// The same limits applied to bytes already in memory (a caller-supplied stdin, as tests give).
    package static func check(_ bytes: [UInt8], input: String, limit: Int, limitName: String,
                              lineLimit: Int? = nil) throws(CKError) {
        if bytes.count > limit { throw tooLarge(input, limit: limit, limitName: limitName) }
        var lines = LineCheck(input: input, lineLimit: lineLimit)
        try lines.scan(bytes[...])
    }

    /// The length of the line being read, across chunks.
    private struct LineCheck {
        let input: String
        let lineLimit: Int?
        var length = 0
        var number = 1

        mutating func scan(_ bytes: ArraySlice<UInt8>) throws(CKError) {
            guard let lineLimit else { return }
            // Newline to newline (a byte loop here cost about 5 instructions a byte of a bulk load's input). A line
            // is refused once its length passes the limit, as a byte loop would.
            var i = bytes.startIndex
            while i < bytes.endIndex {
                let end = ByteSearch.first(0x0A, in: bytes, from: i) ?? bytes.endIndex
                length += end - i
                if length > lineLimit { throw BoundedRead.lineTooLong(input, line: number, lineLimit: lineLimit) }
                if end < bytes.endIndex { length = 0; number += 1 }
                i = end + 1
            }
        }
    }
}
