import Foundation
import Testing
@testable import CKModel
@testable import CKStorage
@testable import CKServer
@testable import CKSync

/// `StoreLayout` lists every path ck makes: a store that went through most commands holds nothing else, and the
/// path-building code builds only paths the table lists.
@Suite struct StoreLayoutTests {
    /// Paths (relative to the store root) that no entry of the table covers.
    func unlisted(_ root: String, _ s: Sandbox) -> [String] {
        s.files(under: root).filter { StoreLayout.entry(for: $0) == nil }
    }

    @Test func everyFileABusyStoreHoldsIsInTheTable() throws {
        let s = try Sandbox()
        try "bytes".write(toFile: s.dir + "/a.bin", atomically: true, encoding: .utf8)
        try "orphan".write(toFile: s.dir + "/b.bin", atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            ["record", "save", "Note", "--name", "a", "t=1", "file:asset=@" + s.dir + "/a.bin"],
            ["record", "save", "Note", "--name", "b", "file:asset=@" + s.dir + "/b.bin"],
            ["record", "save", "Note", "--name", "b", "t=2", "--policy", "all-keys"],
            ["--db", "public", "record", "save", "Note", "--name", "p", "t=1"],
            ["zone", "create", "Work"],
            ["-z", "Work", "record", "save", "Note", "--name", "w", "t=1"],
            ["zone", "create", "Gone"],
            ["subscription", "create", "database", "--id", "all"],
            ["zone", "delete", "Gone", "-y"],
            ["kv", "set", "theme", "dark"],
            ["fault", "add", "--error", "zoneBusy", "--op", "save", "--type", "Nothing"],
            ["sync", "phone"],
            ["kv", "set", "--device", "phone", "volume", "7"],
            ["device", "save", "phone", "Note", "--name", "n1", "-z", "Work", "t=5"],
            ["sync", "phone"],
            ["export", "--file", s.dir + "/dev.json"],
            ["container", "create", "iCloud.com.example.Other"],
            ["-c", "iCloud.com.example.Other", "import", s.dir + "/dev.json"],
            ["-c", "iCloud.com.example.Other", "sync", "tablet"],
            ["schema", "deploy", "-y"],
            ["-e", "production", "record", "save", "Note", "--name", "q", "t=1"],
            ["gc"],
            ["doctor", "--repair"],
        ]
        for args in steps {
            if args == ["schema", "deploy", "-y"] {
                // A document naming a container the store lacks creates it with the import.
                let doc = try String(contentsOfFile: s.dir + "/dev.json", encoding: .utf8)
                try doc.replacingOccurrences(of: "\"iCloud.ck.default\"", with: "\"iCloud.com.example.New\"")
                    .write(toFile: s.dir + "/new.json", atomically: true, encoding: .utf8)
                let r = try s.ck("import", s.dir + "/new.json")
                #expect(r.status == 0, "\(r.stderr)")
            }
            let r = try s.run(args)
            #expect(r.status == 0, "ck \(args.joined(separator: " ")): \(r.stderr)")
        }
        // Something for lost+found: a broken subscriptions.json that the repair moves aside.
        let env = s.dir + "/store/containers/iCloud.ck.default/development"
        try "{".write(toFile: env + "/subscriptions.json", atomically: true, encoding: .utf8)
        try s.ck("doctor", "--repair")
        try s.ck("schema", "reset", "-y")
        try s.ck("container", "delete", "iCloud.com.example.Other", "-y")

        let files = s.files(under: s.dir + "/store")
        for expected in ["ck.json", ".lock", "lost+found", "devices", "containers/iCloud.ck.default/development/faults.json",
                         "containers/iCloud.ck.default/development/kv", "containers/iCloud.ck.default/development/notifications",
                         "containers/iCloud.ck.default/development/.index.sqlite", "containers/iCloud.com.example.New/container.json"] {
            #expect(files.contains(expected), "the walk should meet \(expected): \(files)")
        }
        #expect(unlisted(s.dir + "/store", s) == [])
        // The container delete took the container's devices with it, as the layout says.
        #expect(!files.contains { $0.hasPrefix("containers/iCloud.com.example.Other") || $0.hasPrefix("devices/iCloud.com.example.Other") })
        #expect(try s.ck("doctor").status == 0)
    }

    @Test func pathBuildersBuildListedPaths() throws {
        let root = StoreRoot(path: "/s")
        let env = EnvironmentStore(containerDir: root.containerDir("iCloud.a"), environment: .development)
        let zone = ZoneID(zoneName: "Work", ownerRecordName: "_u")
        let paths = [root.configPath, root.lockPath, root.containerInfoPath("iCloud.a"), env.dir + "/.lock", env.schemaPath, env.zonesPath,
                     env.subscriptionsPath, env.notificationsPath("_u"), env.keyValuePath("_u"), env.assetPath(String(repeating: "a", count: 64)),
                     env.logPath(database: .public, zone: ZoneID(zoneName: Names.defaultZoneName, ownerRecordName: ZoneID.publicOwner)),
                     env.logPath(database: .private, zone: zone), PendingNotifications.path(env),
                     FaultsFile(envDir: env.dir).path, FaultsFile(envDir: env.dir).lockPath, env.dir + "/.index.sqlite"]
        for p in paths {
            #expect(StoreLayout.entry(for: String(p.dropFirst(3))) != nil, "\(p) is not in StoreLayout")
        }
    }

    @Test func containerTreesComeFromTheTable() {
        #expect(StoreLayout.containerTrees("iCloud.a") == ["containers/iCloud.a", "devices/iCloud.a"])
        #expect(StoreLayout.rootNames == ["ck.json", "clock.json", "containers", "devices", ".lock"])
    }

    @Test func strangersAndLeftoversAreNotData() {
        #expect(StoreLayout.entry(for: "notes.txt") == nil)
        #expect(StoreLayout.entry(for: "containers/iCloud.a/staging") == nil)
        #expect(StoreLayout.entry(for: "containers/iCloud.a/development/public/x.txt") == nil)
        #expect(StoreLayout.entry(for: "containers/iCloud.a/development/.zones.json.tmp-abc-1")?.kind == .transient)
        #expect(StoreLayout.entry(for: "containers/iCloud.a/development/.tmp-1", including: [.data]) == nil)
    }
}
