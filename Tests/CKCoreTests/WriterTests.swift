import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSchema
@testable import CKStorage
@testable import CKServer

/// The one writer: CKStorage writes the store only through `EnvironmentStore.apply` and `StoreRoot.apply`, and
/// the server calls them only from its pipeline's last stage (Sources/CKServer/Pipeline/).
@Suite struct WriterTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The swift files under a folder, by path relative to the package root.
    static func sources(_ folder: String) throws -> [(path: String, text: String)] {
        let base = root + "/" + folder
        let names = FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return try names.sorted().map { (folder + "/" + $0, try String(contentsOfFile: base + "/" + $0, encoding: .utf8)) }
    }

    /// The declarations of CKStorage methods that write the store. Each is internal: only the writers (and doctor's
    /// repairs) call them.
    static let writingMethods = ["func writeConfig(", "func createContainerFiles(", "func deleteContainer(", "func storeAsset(",
                                 "func rewriteLog(", "func removeStrayLog(", "func replaceData(", "func dropZoneFiles(",
                                 "func appended(", "func appendLog(", "func writeBytes(", "func writeJSON(", "func makeTree(",
                                 "func writeSchema(", "func writeCatalog(", "func removeAsset(", "func syncLog(",
                                 "static func append(_ path: String", "func record(_ env: EnvironmentStore", "func deliver(_ env:",
                                 "func write(_ path: String", "func write(_ json: JSON", "func write(_ o: [String: JSON]", "func write(_ file:"]

    @Test func storageWritesOnlyThroughApply() throws {
        for (path, text) in try WriterTests.sources("Sources/CKStorage") {
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let t = line.trimmingCharacters(in: .whitespaces)
                guard t.hasPrefix("package ") || t.hasPrefix("public ") else { continue }
                for m in WriterTests.writingMethods where t.contains(m) {
                    Issue.record("\(path):\(n + 1): '\(m)' writes the store and is visible outside CKStorage; route it through apply")
                }
            }
            #expect(!text.contains("package struct StagedEnvironment"), "\(path): StagedEnvironment is the writer's own")
        }
    }

    @Test func onlyThePipelineCallsTheWriter() throws {
        let calls = try Regex(#"\b(env|files|dev|prod|db\.env|store\.files)\.apply\("#)
        var found = 0
        for (path, text) in try WriterTests.sources("Sources/CKServer") {
            let n = text.matches(of: calls).count
            found += n
            if n > 0 && !path.hasPrefix("Sources/CKServer/Pipeline/") {
                Issue.record("\(path) calls the writer: bodies list StoreChange values; the pipeline's last stage applies them")
            }
        }
        #expect(found > 0, "the scan found no call of the writer at all: its pattern no longer matches the code")
    }

    /// Changes apply in the order given and stop at the first failure; a request's notifications are recorded
    /// before its lines, so lines that never made it leave notifications the next writer drops.
    @Test func notificationsAreRecordedBeforeTheLinesAndDroppedWhenTheLinesFail() throws {
        let t = try TempStore()
        _ = try t.db().save("Note", "n1", ["title": "a"])
        _ = try t.db().createZone("Z")
        let env = EnvironmentStore(containerDir: t.dir + "/store/containers/" + CKStore.defaultContainerID, environment: .development)
        var schema = try env.readSchema()
        schema.recordTypes["Fresh"] = RecordTypeSchema(name: "Fresh")
        // A log under a regular file: its append fails after the schema and the pending notifications are written.
        let blocker = env.dir + "/blocker"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data()))
        let log = blocker + "/x.jsonl"
        let pending = PendingNotifications(log: "blocker/x.jsonl", offset: 0, count: 1, firstSeq: 99, byOwner: [:], subscriptions: nil)
        let entry = LogEntry.delete(seq: 99, recordName: "n1", recordType: "Note", at: 0, userRecordName: nil)
        let failed = try env.locked(exclusive: true) { () throws(CKError) -> CKError? in
            do throws(CKError) {
                try env.apply([.schema(schema), .records(path: log, entries: [entry], tail: ZoneLogContents(), notifications: pending),
                               .catalog(ZoneCatalog())])
                return nil
            } catch { return error }
        }
        #expect(failed != nil)
        #expect(try env.readSchema().recordTypes["Fresh"] != nil, "the schema goes before the lines")
        #expect(FileManager.default.fileExists(atPath: PendingNotifications.path(env)), "notifications are recorded before the lines")
        #expect(try env.readCatalog().zones.map(\.zoneID.zoneName) == ["Z"], "nothing after the failed change was applied")
        // The next writer finds the lines missing and drops the notifications.
        try FileManager.default.removeItem(atPath: blocker)
        try env.locked(exclusive: true) { () throws(CKError) in }
        #expect(!FileManager.default.fileExists(atPath: PendingNotifications.path(env)))
        #expect(try t.db().fetchOne("n1").recordName == "n1", "the lines never made it")
    }
}
