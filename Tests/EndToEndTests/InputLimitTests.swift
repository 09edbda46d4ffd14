import Foundation
import Testing

// Every input a user gives ck (a file argument, stdin, an `@file` value) is read under its documented limit
// (docs/cli.md §4.1): an endless source such as /dev/zero is refused with limitExceeded (exit 8) naming the limit,
// after reading at most the limit, and the store is left as it was. On the old code these runs never ended.

@Suite struct InputLimitTests {
    /// limitExceeded's exit code (docs/cli.md §5).
    static let limitExceeded: Int32 = 8

    /// A sandbox with one saved record, so "the store did not change" compares real files.
    static func seeded() throws -> Sandbox {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=kept").status == 0)
        return s
    }

    /// Every file of the store with its bytes (but SQLite's shared-memory file, which any reader of the index
    /// rewrites and which holds no data).
    static func snapshot(_ s: Sandbox) -> [String: Data] {
        var out: [String: Data] = [:]
        for f in s.files(under: s.dir + "/store") where !f.hasSuffix("-shm") {
            let path = s.dir + "/store/" + f
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue {
                out[f] = FileManager.default.contents(atPath: path)
            }
        }
        return out
    }

    /// Runs ck with stdin taken from /dev/zero (the shell redirects, so ck reads a real endless descriptor).
    static func fromZero(_ s: Sandbox, _ args: String) throws -> Sandbox.Result {
        try s.run(["-c", "exec \"$0\" \(args) < /dev/zero", Sandbox.binary], program: "/bin/sh")
    }

    /// A sparse file of `size` bytes (zeros): over a limit, it must be refused from its size, unread.
    static func sparse(_ s: Sandbox, _ name: String, size: Int) throws -> String {
        let path = s.dir + "/" + name
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let h = try #require(FileHandle(forWritingAtPath: path))
        try h.truncate(atOffset: UInt64(size))
        try h.close()
        return path
    }

    /// `text` padded with trailing spaces to exactly `length` bytes (JSON ignores the blanks).
    static func padded(_ text: String, to length: Int) -> String {
        text + String(repeating: " ", count: length - text.utf8.count)
    }

    static func expectRefused(_ r: Sandbox.Result, naming limit: String, _ place: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == limitExceeded, "\(place): \(r.stderr.prefix(300))", sourceLocation: sourceLocation)
        #expect(r.stderr.contains("limitExceeded"), "\(place): \(r.stderr.prefix(300))", sourceLocation: sourceLocation)
        #expect(r.stderr.contains(limit), "\(place) should name \(limit): \(r.stderr.prefix(300))", sourceLocation: sourceLocation)
    }

    @Test func batchFromAnEndlessSourceIsRefusedAtTheLineLimit() throws {
        let s = try Self.seeded()
        let before = Self.snapshot(s)
        // A line may hold one record's JSON: 4 MB (4,194,304 bytes); /dev/zero has no newline at all.
        let file = try s.ck("record", "save", "--batch", "/dev/zero")
        Self.expectRefused(file, naming: "4194304 bytes (4 MB)", "--batch /dev/zero")
        #expect(file.stderr.contains("/dev/zero:1:"))
        let stdin = try Self.fromZero(s, "record save --batch -")
        Self.expectRefused(stdin, naming: "4194304 bytes (4 MB)", "--batch - < /dev/zero")
        #expect(stdin.stderr.contains("<stdin>:1:"))
        #expect(Self.snapshot(s) == before)
    }

    @Test func batchLineOfExactlyTheLimitIsSavedAndOneByteMoreIsRefused() throws {
        let s = try Self.seeded()
        let line = #"{"recordName": "big", "recordType": "Note", "fields": {"title": {"value": "padded"}}}"#
        let first = #"{"recordName": "small", "recordType": "Note", "fields": {"title": {"value": "one"}}}"#
        try s.write(first + "\n" + Self.padded(line, to: 4_194_305) + "\n", to: "over.jsonl")
        let before = Self.snapshot(s)
        let over = try s.ck("record", "save", "--batch", "over.jsonl")
        Self.expectRefused(over, naming: "4 MB", "a 4 MB + 1 line")
        #expect(over.stderr.contains("over.jsonl:2:"))
        #expect(Self.snapshot(s) == before)

        try s.write(first + "\n" + Self.padded(line, to: 4_194_304) + "\n", to: "at.jsonl")
        let at = try s.ck("record", "save", "--batch", "at.jsonl")
        #expect(at.status == 0, "\(at.stderr.prefix(300))")
        #expect(try s.ck("record", "fetch", "big").stdout.contains("title=padded"))
    }

    @Test func fieldsFileAndStdinAreReadUnderTheRecordJSONLimit() throws {
        let s = try Self.seeded()
        let before = Self.snapshot(s)
        Self.expectRefused(try s.ck("record", "save", "Note", "--fields-file", "/dev/zero"), naming: "4 MB", "--fields-file /dev/zero")
        Self.expectRefused(try Self.fromZero(s, "record save Note --fields-stdin"), naming: "4 MB", "--fields-stdin < /dev/zero")
        let fields = #"{"title": {"value": "from a file"}}"#
        try s.write(Self.padded(fields, to: 4_194_305), to: "over.json")
        Self.expectRefused(try s.ck("record", "save", "Note", "--name", "f1", "--fields-file", "over.json"), naming: "4 MB", "a 4 MB + 1 fields file")
        #expect(Self.snapshot(s) == before)

        try s.write(Self.padded(fields, to: 4_194_304), to: "at.json")
        #expect(try s.ck("record", "save", "Note", "--name", "f1", "--fields-file", "at.json").status == 0)
        #expect(try s.ck("record", "fetch", "f1").stdout.contains("title=from a file"))
    }

    @Test func schemaImportIsReadUnderItsLimit() throws {
        let s = try Self.seeded()
        let before = Self.snapshot(s)
        Self.expectRefused(try s.ck("schema", "import", "/dev/zero"), naming: "16777216 bytes (16 MB)", "schema import /dev/zero")
        Self.expectRefused(try Self.fromZero(s, "schema import -"), naming: "16 MB", "schema import - < /dev/zero")
        let big = try Self.sparse(s, "big.ckdb", size: 16 * 1_048_576 + 1)
        Self.expectRefused(try s.ck("schema", "import", big), naming: "16 MB", "a 16 MB + 1 schema file")
        #expect(Self.snapshot(s) == before)
    }

    @Test func fixturesImportIsReadUnderItsLimit() throws {
        let s = try Self.seeded()
        let before = Self.snapshot(s)
        Self.expectRefused(try s.ck("import", "/dev/zero"), naming: "536870912 bytes (512 MB)", "import /dev/zero")
        let big = try Self.sparse(s, "big.json", size: 512 * 1_048_576 + 1)
        Self.expectRefused(try s.ck("import", big), naming: "512 MB", "a 512 MB + 1 document")
        #expect(Self.snapshot(s) == before)
    }

    @Test func fileValuesAreReadUnderTheirFieldsLimits() throws {
        let s = try Self.seeded()
        let before = Self.snapshot(s)
        // An asset takes at most 50 MB; a BYTES value can't pass the record's 1 MB.
        Self.expectRefused(try s.ck("record", "save", "Note", "--name", "a1", "f:asset=@/dev/zero"), naming: "52428800 bytes (50 MB)", "f:asset=@/dev/zero")
        Self.expectRefused(try s.ck("record", "save", "Note", "--name", "a1", "b:bytes=@/dev/zero"), naming: "1048576 bytes (1 MB)", "b:bytes=@/dev/zero")
        Self.expectRefused(try s.ck("record", "save", "Note", "--name", "a1", "--fields-json", #"{"pic": {"value": "k", "type": "assetType"}}"#,
                                    "--asset-file", "k=/dev/zero"), naming: "50 MB", "--asset-file k=/dev/zero")
        #expect(Self.snapshot(s) == before)
    }

    @Test func kvSetFileIsReadUnderTheValueLimit() throws {
        let s = try Self.seeded()
        let before = Self.snapshot(s)
        Self.expectRefused(try s.ck("kv", "set", "k", "@/dev/zero", "--type", "data"), naming: "1048576 bytes (1 MB)", "kv set @/dev/zero")
        try Data(repeating: 7, count: 1_048_577).write(to: URL(fileURLWithPath: s.dir + "/over.bin"))
        Self.expectRefused(try s.ck("kv", "set", "k", "@over.bin", "--type", "data"), naming: "1 MB", "a 1 MB + 1 value file")
        #expect(Self.snapshot(s) == before)
        // 1 MB less one byte, under a one-byte key: the store's 1 MB total exactly.
        try Data(repeating: 7, count: 1_048_575).write(to: URL(fileURLWithPath: s.dir + "/at.bin"))
        let at = try s.ck("kv", "set", "k", "@at.bin", "--type", "data")
        #expect(at.status == 0, "\(at.stderr.prefix(300))")
    }
}
