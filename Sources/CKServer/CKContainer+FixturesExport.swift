import Foundation
import CKModel
import CKSchema
import CKStorage

/// `ck export` streamed: the document's text is written a record at a time, never held whole (issue 28).
extension CKContainer {
    /// What `caller` may see of an environment as one JSON document, in a stable order (export → import →
    /// export is identical): the schema, the public records it may read, and its own private zones, records and
    /// subscriptions. `allUsers` is an administrator's view: every user's data, no grants consulted.
    /// `progress` is told bytes of zone logs read out of the total.
    public func exportFixtures(_ environment: Environment, as caller: Caller, allUsers: Bool = false,
                               progress: (Int, Int) -> Void = { _, _ in }) throws(CKError) -> JSON {
        var text: [UInt8] = []
        try exportFixtures(environment, as: caller, allUsers: allUsers, progress: progress) { (piece) throws(CKError) in text += piece }
        do { return try JSON.parse(utf8: text) } catch {
            throw CKError.internalError("the exported document does not parse at \(error.line):\(error.column): \(error.message)")
        }
    }

    /// The same document as indented JSON text ending in a newline, handed to `sink` in pieces of about 64 KB as
    /// it is made. A zone's live records are found by scanning its log (keeping where each one's line is, not the
    /// record), then read back one at a time in name order, so memory stays flat however large the environment.
    /// Everything that can fail on the store's side (a missing asset file) is checked before the first piece.
    public func exportFixtures(_ environment: Environment, as caller: Caller, allUsers: Bool = false,
                               progress: (Int, Int) -> Void = { _, _ in },
                               to sink: ([UInt8]) throws(CKError) -> Void) throws(CKError) {
        let db = database(.public, environment: environment, caller: caller)
        let env = db.env
        let signedIn = try accountStatus(of: caller).isSignedIn
        // Whose private data the document holds: everyone's, the caller's, or (signed out) nobody's.
        let owns: (String) -> Bool = { owner in allUsers || (signedIn && owner == caller.userRecordName) }
        try db.perform(.fixturesExport, administrator: allUsers) { (state) throws(CKError) -> Void in
            let schema = try env.readSchema()
            // Pass 1: each log's live, readable records as the place of their line, and the assets they use.
            var logs: [(database: String, path: String, lines: [(offset: Int, length: Int)])] = []
            var hashes = Set<String>()
            let paths = env.logPaths(ownedBy: owns).sorted()
            let total = paths.reduce(0) { $0 + env.fileSize($1) }
            for path in paths {
                let database = path.hasPrefix(env.dir + "/public/") ? "public" : "private"
                // Where each live, readable record's line is; the assets it uses are noted now, so a missing one is
                // found before any output.
                var used: [String: [String]] = [:]
                let live = try env.liveLines(path) { (r) -> Bool in
                    guard database == "private" || state.gate.mayRead(r, schema: schema) else { return false }
                    var h = Set<String>()
                    for v in r.fields.values { v.collectAssetHashes(into: &h) }
                    used[r.recordName] = h.isEmpty ? nil : h.sorted()
                    return true
                }
                let names = live.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                var lines: [(offset: Int, length: Int)] = []
                lines.reserveCapacity(names.count)
                for name in names {
                    guard let line = live[name], line.keep else { continue }
                    lines.append((line.offset, line.length))
                    hashes.formUnion(used[name] ?? [])
                }
                logs.append((database, path, lines))
            }
            for h in hashes.sorted() where !env.hasAsset(h) {
                throw CKError(.assetFileNotFound, "\(env.assetPath(h)): a record refers to this asset but its file is missing",
                              hint: "run 'ck doctor'")
            }
            // The rest of the document is small: built first, so a failure to read it comes before any output.
            let rest: [(String, JSON)] = [
                ("container", .string(identifier)), ("environment", .string(environment.rawValue)),
                ("keyValueStores", try exportKeyValueStores(env, owns: owns)), ("schema", schema.json),
                ("subscriptions", .array(try SubscriptionFile.read(env.subscriptionsPath).subscriptions.filter { owns($0.ownerRecordName) }.map(\.json))),
                ("users", .array(try users().filter { owns($0.userRecordName) }
                    .map { .object(["name": .string($0.name), "userRecordName": .string($0.userRecordName)]) })),
                ("zones", .array(exportedZones(state.catalog, owns: owns))),
            ]
            // Pass 2: the text, in the order `JSON.pretty` gives the whole object ("format" and "records" are
            // ranked first, the other keys follow in byte order), so the bytes are those of the document built whole.
            // Pieces go out once past 64 KB, always cut between JSON tokens (so each holds whole characters).
            var buffer: [UInt8] = []
            func flush() throws(CKError) {
                guard !buffer.isEmpty else { return }
                try sink(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
            func flushIfFull() throws(CKError) { if buffer.count >= 1 << 16 { try flush() } }
            func put(_ s: String) throws(CKError) {
                buffer.append(contentsOf: s.utf8)
                try flushIfFull()
            }
            try put("{\n  \"format\": ")
            JSON.writeString(CKContainer.fixtureFormat, into: &buffer)
            try put(",\n  \"records\": ")
            var first = true
            var done = 0
            for log in logs {
                try env.readRecords(log.path, at: log.lines) { (r) throws(CKError) in
                    try put(first ? "[\n    " : ",\n    ")
                    first = false
                    JSON.object(["database": .string(log.database), "record": r.json()]).write(into: &buffer, indent: 2, level: 2)
                    try flushIfFull()
                }
                done += env.fileSize(log.path)
                progress(done, total)
            }
            try put(first ? "[]" : "\n  ]")
            try put(",\n  \"assets\": ")
            let sorted = hashes.sorted()
            for (i, h) in sorted.enumerated() {
                guard let bytes = try env.readAsset(h) else {
                    throw CKError(.assetFileNotFound, "\(env.assetPath(h)): a record refers to this asset but its file is missing",
                                  hint: "run 'ck doctor'")
                }
                try put(i == 0 ? "{\n    " : ",\n    ")
                JSON.writeString(h, into: &buffer)
                try put(": ")
                JSON.writeString(Data(bytes).base64EncodedString(), into: &buffer)
                try flushIfFull()
            }
            try put(sorted.isEmpty ? "{}" : "\n  }")
            for (key, value) in rest {
                try put(",\n  ")
                JSON.writeString(key, into: &buffer)
                try put(": ")
                value.write(into: &buffer, indent: 2, level: 1)
            }
            try put("\n}\n")
            try flush()
        }
    }

    /// The zones a document holds, by owner then name.
    private func exportedZones(_ catalog: ZoneCatalog, owns: (String) -> Bool) -> [JSON] {
        catalog.zones.filter { owns($0.zoneID.ownerRecordName) }
            .sorted { ($0.zoneID.ownerRecordName, $0.zoneID.zoneName) < ($1.zoneID.ownerRecordName, $1.zoneID.zoneName) }
            .map { z in
                .object(["database": .string(z.database.rawValue), "ownerRecordName": .string(z.zoneID.ownerRecordName),
                         "zoneName": .string(z.zoneID.zoneName),
                         "capabilities": .array(z.capabilities.sorted().map { .string($0.rawValue) }),
                         "created": .int(z.created)])
            }
    }
}
