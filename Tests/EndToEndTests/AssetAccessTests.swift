import Foundation
import Testing
import CKModel

/// Asset bytes are reached only through a record the caller may read (issue 28, Security): a save that names
/// another user's asset by hash is refused as an asset never uploaded, and download URLs carry a bearer token
/// handed out only with a readable record. A record whose asset bytes left the store answers a clear error.
@Suite struct AssetAccessTests {
    /// Alice's secret bytes, and their SHA-256 as `sha256sum` prints it (not ck).
    static let secret = "alice's secret asset bytes\n"

    static func sha256sum(_ s: Sandbox, _ file: String) throws -> String {
        let r = try s.run(["-c", "sha256sum \"$1\" | cut -c1-64", "sh", file], program: "/bin/sh")
        try #require(r.status == 0, "\(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A batch line saving record `name` of type Photo whose `image` names an asset by hash.
    static func line(_ name: String, sha: String, size: Int) -> String {
        #"{"recordName":"\#(name)","recordType":"Photo","fields":{"image":{"value":{"sha256":"\#(sha)","size":\#(size)},"type":"ASSETID"}}}"# + "\n"
    }

    @Test func anotherUsersAssetHashIsRefusedOnTheCommandLine() throws {
        let s = try Sandbox()
        try s.write(Self.secret, to: "secret.bin")
        let sha = try Self.sha256sum(s, s.dir + "/secret.bin")
        let size = Self.secret.utf8.count
        #expect(try s.ck("--as", "alice", "record", "save", "Photo", "--name", "a1", "image:asset=@secret.bin").status == 0)

        // Bob names alice's hash in his own record: refused as an asset he never uploaded, nothing saved.
        try s.write(Self.line("b1", sha: sha, size: size), to: "bob.jsonl")
        let bob = try s.ck("--as", "bob", "record", "save", "--batch", "bob.jsonl")
        #expect(bob.status == 8, "\(bob)")
        #expect(bob.stderr.contains("assetFileNotFound") && bob.stderr.contains("no asset with sha256 \(sha) uploaded by this caller"), "\(bob.stderr)")
        // The same answer as for a hash the store lacks, and a wrong size tells nothing of the real one.
        let absent = String(repeating: "0", count: 64)
        try s.write(Self.line("b2", sha: absent, size: size), to: "absent.jsonl")
        let none = try s.ck("--as", "bob", "record", "save", "--batch", "absent.jsonl")
        #expect(none.status == 8 && none.stderr.replacingOccurrences(of: absent, with: sha) == bob.stderr,
                "\(none.stderr) vs \(bob.stderr)")
        try s.write(Self.line("b3", sha: sha, size: 999), to: "probe.jsonl")
        let probe = try s.ck("--as", "bob", "record", "save", "--batch", "probe.jsonl")
        #expect(probe.status == 8 && !probe.stderr.contains("\(size) bytes") && !probe.stderr.contains("\"size\": \(size)"), "\(probe.stderr)")

        // Bob has no record to read the bytes through.
        for name in ["b1", "b2", "b3"] {
            let get = try s.ck("--as", "bob", "asset", "get", name, "image", "--file", s.dir + "/bob-\(name).bin")
            #expect(get.status == 3, "\(name): \(get)")
            #expect(!get.stdout.contains("secret") && !FileManager.default.fileExists(atPath: s.dir + "/bob-\(name).bin"))
        }

        // Alice still reads hers, and may save her record again with the asset its field already holds.
        let got = try s.ck("--as", "alice", "asset", "get", "a1", "image", "--file", s.dir + "/alice.bin")
        #expect(got.status == 0, "\(got)")
        #expect(try String(contentsOfFile: s.dir + "/alice.bin", encoding: .utf8) == Self.secret)
        try s.write(Self.line("a1", sha: sha, size: size), to: "again.jsonl")
        let again = try s.ck("--as", "alice", "record", "save", "--batch", "again.jsonl", "--policy", "changed-keys")
        #expect(again.status == 0, "\(again)")
        // A new record naming it by hash in a later command holds no receipt: the bytes are given again.
        try s.write(Self.line("a2", sha: sha, size: size), to: "copy.jsonl")
        #expect(try s.ck("--as", "alice", "record", "save", "--batch", "copy.jsonl").status == 8)
        #expect(try s.ck("--as", "alice", "record", "save", "Photo", "--name", "a2", "image:asset=@secret.bin").status == 0)
    }

    /// assets/upload then records/modify as `token`'s user; returns the upload's singleFile dictionary.
    static func uploadAndSave(_ s: ServeSession, db: String, token: String, recordName: String, bytes: [UInt8]) throws -> JSON {
        let single = try ServeAssetsTests.upload(s, db: db, token: token, recordName: recordName, bytes: bytes)
        let saved = try s.post(db, "records/modify", Self.modify(recordName, single), token: token)
        try #require(saved.status == 200 && saved.json["records"]?.arrayValue?.first?["serverErrorCode"] == nil, "\(saved.text)")
        return single
    }

    static func modify(_ recordName: String, _ value: JSON) -> String {
        #"{"operations":[{"operationType":"create","record":{"recordName":"\#(recordName)","recordType":"Photo","fields":{"image":{"value":\#(value.serialized())}}}}]}"#
    }

    /// The downloadURL of record `name`'s image as `token`'s user looks it up; nil when the lookup gives none.
    static func downloadURL(_ s: ServeSession, db: String, token: String?, name: String) throws -> String? {
        let looked = try s.post(db, "records/lookup", #"{"records":[{"recordName":"\#(name)"}]}"#, token: token)
        guard let url = looked.json["records"]?.arrayValue?.first?["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue else { return nil }
        return try s.target(of: url)
    }

    @Test func serveHandsAliceAssetsToNobodyElse() throws {
        let s = try ServeSession()
        let alice = try s.token(for: "alice"), bob = try s.token(for: "bob")
        let bytes = Array(Self.secret.utf8)
        let single = try Self.uploadAndSave(s, db: "private", token: alice, recordName: "p1", bytes: bytes)

        // Alice: lookup hands her a download URL, and it gives the bytes.
        let url = try #require(try Self.downloadURL(s, db: "private", token: alice, name: "p1"))
        #expect(try s.server.get(url).body == bytes)

        // Bob saves alice's upload answer (her checksum and receipt) in his own record: refused, nothing saved.
        let stolen = try s.post("private", "records/modify", Self.modify("b1", single), token: bob)
        #expect(stolen.status == 200, "\(stolen.text)")
        let item = stolen.json["records"]?.arrayValue?.first
        #expect(item?["serverErrorCode"] == .string("BAD_REQUEST"), "\(stolen.text)")
        #expect(item?["reason"]?.stringValue?.contains("uploaded by this caller") == true, "\(stolen.text)")
        #expect(try Self.downloadURL(s, db: "private", token: bob, name: "b1") == nil)
        // …nor in the public database, where he may create records.
        let publicly = try s.post("public", "records/modify", Self.modify("b2", single), token: bob)
        #expect(publicly.json["records"]?.arrayValue?.first?["serverErrorCode"] == .string("BAD_REQUEST"), "\(publicly.text)")
        #expect(try Self.downloadURL(s, db: "public", token: bob, name: "b2") == nil)

        // assets/rereference gives bob no receipt for a record he can't read, nor for a bare checksum.
        let checksum = try #require(single["fileChecksum"])
        for body in [#"{"assets":[{"fileChecksum":\#(checksum.serialized()),"size":\#(bytes.count),"recordName":"p1","fieldName":"image"}]}"#,
                     #"{"assets":[{"fileChecksum":\#(checksum.serialized()),"size":\#(bytes.count)}]}"#] {
            let reref = try s.post("private", "assets/rereference", body, token: bob)
            #expect(reref.json["assets"]?.arrayValue?.first?["serverErrorCode"] == .string("NOT_FOUND"), "\(reref.text)")
        }
        #expect(try s.post("private", "records/modify", Self.modify("b3", single), token: bob)
                    .json["records"]?.arrayValue?.first?["serverErrorCode"] == .string("BAD_REQUEST"))

        // A download URL built from the hash, or with a made-up or another asset's token: unknown, no bytes.
        let path = String(url[..<(url.firstIndex(of: "?") ?? url.endIndex)])
        let token = String(url[(url.firstIndex(of: "?") ?? url.endIndex)...])
        try s.sandbox.write("other bytes", to: "other.bin")
        #expect(try s.sandbox.run(["--as", "bob", "record", "save", "Photo", "--name", "mine", "image:asset=@other.bin"]).status == 0)
        let bobsURL = try #require(try Self.downloadURL(s, db: "private", token: bob, name: "mine"))
        let bobsToken = String(bobsURL[(bobsURL.firstIndex(of: "?") ?? bobsURL.endIndex)...])
        #expect(!token.isEmpty && !bobsToken.isEmpty && token != bobsToken, "\(url) \(bobsURL)")
        for target in [path, path + "?t=", path + "?t=" + String(repeating: "A", count: 32), path + bobsToken,
                       path.replacingOccurrences(of: "${f}", with: "x.jpg") + bobsToken] {
            let r = try s.server.get(target)
            #expect(r.status == 404 && r.json["serverErrorCode"] == .string("NOT_FOUND"), "\(target): \(r.status) \(r.text)")
            #expect(HTTPClient.find(Array("secret".utf8), in: r.body) == nil, "\(target) gave alice's bytes")
        }

        // Alice's own rereference of her record works, and its answer saves.
        let mine = try s.post("private", "assets/rereference",
                              #"{"assets":[{"fileChecksum":\#(checksum.serialized()),"size":\#(bytes.count),"recordName":"p1","fieldName":"image"}]}"#, token: alice)
        let dict = try #require(mine.json["assets"]?.arrayValue?.first)
        #expect(dict["serverErrorCode"] == nil, "\(mine.text)")
        let copy = try s.post("private", "records/modify", Self.modify("p2", dict), token: alice)
        #expect(copy.json["records"]?.arrayValue?.first?["serverErrorCode"] == nil, "\(copy.text)")
        #expect(try s.server.get(url).body == bytes)
    }

    @Test func aPublicRecordsAssetIsReadableByWhoeverMayReadTheRecord() throws {
        let s = try ServeSession()
        let alice = try s.token(for: "alice"), bob = try s.token(for: "bob")
        let bytes = Array(Self.secret.utf8)
        _ = try Self.uploadAndSave(s, db: "public", token: alice, recordName: "pub", bytes: bytes)
        // Bob reads the public record: its download URL gives him the bytes; so does the command line.
        let url = try #require(try Self.downloadURL(s, db: "public", token: bob, name: "pub"))
        let got = try s.server.get(url)
        #expect(got.status == 200 && got.body == bytes, "\(got.status) \(got.text)")
        let cli = try s.sandbox.run(["--as", "bob", "--db", "public", "asset", "get", "pub", "image", "--file", s.sandbox.dir + "/pub.bin"])
        #expect(cli.status == 0, "\(cli)")
        #expect(try String(contentsOfFile: s.sandbox.dir + "/pub.bin", encoding: .utf8) == Self.secret)
        // Reading it is no licence to name it in a save of his own, unless rereferenced through that record.
        let sha = try Self.sha256sum(s.sandbox, s.sandbox.dir + "/pub.bin")
        try s.sandbox.write(Self.line("bobs", sha: sha, size: bytes.count), to: "bobs.jsonl")
        #expect(try s.sandbox.run(["--as", "bob", "--db", "public", "record", "save", "--batch", "bobs.jsonl"]).status == 8)
    }

    @Test func anAssetWhoseBytesLeftTheStoreIsAClearError() throws {
        let s = try ServeSession()
        try s.sandbox.write(Self.secret, to: "p.bin")
        #expect(try s.sandbox.run(["--as", "alice", "record", "save", "Photo", "--name", "p", "image:asset=@p.bin"]).status == 0)
        let alice = try s.token(for: "alice")
        let sha = try Self.sha256sum(s.sandbox, s.sandbox.dir + "/p.bin")
        let url = try #require(try Self.downloadURL(s, db: "private", token: alice, name: "p"))
        let file = s.sandbox.dir + "/store/containers/\(ServeSession.container)/development/assets/" + sha
        #expect(FileManager.default.fileExists(atPath: file))
        try FileManager.default.removeItem(atPath: file)

        // The download: NOT_FOUND naming the asset and the damage, not INTERNAL_ERROR.
        let r = try s.server.get(url)
        #expect(r.status == 404 && r.json["serverErrorCode"] == .string("NOT_FOUND"), "\(r.status) \(r.text)")
        let reason = r.json["reason"]?.stringValue ?? ""
        #expect(reason.contains(sha) && reason.contains("damaged store"), "\(r.text)")
        // Saving the record again with its value as fetched: an item error naming the asset, not INTERNAL_ERROR.
        let again = try s.post("private", "records/modify", """
            {"operations":[{"operationType":"forceUpdate","record":{"recordName":"p","recordType":"Photo","fields":{"image":{"value":{"sha256":"\(sha)","size":1},"type":"ASSETID"}}}}]}
            """, token: alice)
        let item = again.json["records"]?.arrayValue?.first
        #expect(item?["serverErrorCode"] != nil && item?["serverErrorCode"] != .string("INTERNAL_ERROR"), "\(again.text)")
        #expect(item?["reason"]?.stringValue?.contains("missing from the store") == true, "\(again.text)")

        // The command line: the asset and 'ck doctor' named, as a failure, not as the user's bad input.
        let get = try s.sandbox.run(["--as", "alice", "asset", "get", "p", "image", "--file", s.sandbox.dir + "/out.bin"])
        #expect(get.status == 1, "\(get)")
        #expect(get.stderr.contains("assetNotAvailable") && get.stderr.contains(sha) && get.stderr.contains("ck doctor"), "\(get.stderr)")
        // Doctor reports the missing file.
        let doctor = try s.sandbox.run(["doctor"])
        #expect(doctor.status != 0 && doctor.stdout.contains("assets/" + sha) && doctor.stdout.contains("its file is missing"), "\(doctor)")
    }
}
