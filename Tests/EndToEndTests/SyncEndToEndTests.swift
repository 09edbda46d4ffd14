import Foundation
import Testing

/// `ck sync` and `ck device` through the binary: two devices of one user, edits offline, the server in between.
@Suite struct SyncEndToEndTests {
    @Test func twoDevicesSyncThroughTheServer() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n1", "title=Hello").status == 0)
        let first = try s.ck("sync", "phone")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "pulled\tNotes\t1\t0\n")
        let records = try s.ck("device", "records", "phone")
        #expect(records.stdout.hasPrefix("Notes\tn1\tNote\t"), "\(records.stdout)")
        #expect(records.stdout.hasSuffix("\t-\ttitle=Hello\n"))
        // Offline on tablet, then pushed.
        let saved = try s.ck("device", "save", "tablet", "Note", "--name", "n2", "-z", "Notes", "title=From tablet", "count=3")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.contains("\tsave(count,title)\t"))
        #expect(try s.ck("-z", "Notes", "record", "fetch", "n2").status == 3, "not on the server before a sync")
        let pushed = try s.ck("sync", "tablet")
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(pushed.stdout.contains("pushed\tsave\tNotes\tn2\n"))
        let fetched = try s.ck("-z", "Notes", "record", "fetch", "n2", "-o", "json")
        #expect(fetched.status == 0)
        #expect(fetched.stdout.contains("\"deviceID\": \"tablet\""))
        #expect(fetched.stdout.contains("\"value\": 3"))
        // phone pulls it.
        let pulled = try s.ck("sync", "phone")
        #expect(pulled.stdout == "pulled\tNotes\t1\t0\n")
        #expect(try s.ck("device", "records", "phone", "-z", "Notes").stdout.contains("Notes\tn2\tNote\t"))
        // A conflict: both change title; the server's value wins with --conflicts server.
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n1", "-z", "Notes", "title=Phone", "body=b").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n1", "--policy", "changed-keys", "title=Server").status == 0)
        let merged = try s.ck("sync", "phone", "--conflicts", "server")
        #expect(merged.stdout.contains("merged\tNotes\tn1\tbody\ttitle=server\n"), "\(merged.stdout)")
        #expect(try s.ck("-z", "Notes", "record", "fetch", "n1").stdout.contains("body=b\ttitle=Server"))
        // A pending delete, shown, then pushed.
        #expect(try s.ck("device", "remove", "tablet", "n1", "-z", "Notes").stdout == "Notes\tn1\tdelete\n")
        #expect(try s.ck("sync", "tablet").stdout.contains("pushed\tdelete\tNotes\tn1\n"))
        #expect(try s.ck("-z", "Notes", "record", "fetch", "n1").status == 3)
        // The files live under devices/, which export leaves out.
        let files = s.files(under: s.dir + "/store/devices")
        #expect(files.contains { $0.hasPrefix("iCloud.ck.default/development/_") && $0.hasSuffix("/phone.sqlite") }, "\(files)")
        #expect(!(try s.ck("export").stdout.contains("phone")))
        #expect(try s.ck("device", "list").stdout.hasPrefix("phone\t"))
        #expect(try s.ck("__complete", "device").stdout == "phone\ntablet\n")
        let json = try s.ck("device", "show", "phone", "-o", "json")
        #expect(json.stdout.contains("\"pendingSaves\": 0"))
        #expect(try s.ck("device", "delete", "tablet", "-y").status == 0)
        #expect(try s.ck("__complete", "device").stdout == "phone\n")
    }

    @Test func mistakesGetClearErrors() throws {
        let s = try Sandbox()
        let name = try s.ck("sync", "my phone")
        #expect(name.status == 8 && name.stderr.contains("invalid device name 'my phone'"))
        let zone = try s.ck("device", "save", "phone", "Note", "title=x")
        #expect(zone.status == 8 && zone.stderr.contains("_defaultZone has no change feed"))
        let missing = try s.ck("device", "show", "nope")
        #expect(missing.status == 3 && missing.stderr.contains("ck sync nope"))
        let policy = try s.ck("sync", "phone", "--conflicts", "mine")
        #expect(policy.status == 64)
        // An edit in a zone the server lacks (and never deleted): the sync meets zoneNotFound, creates the zone
        // and uploads the edit, as a CKSyncEngine app does (docs/faults.md).
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "a", "-z", "Gone", "title=x").status == 0)
        let created = try s.ck("sync", "phone")
        #expect(created.status == 0 && created.stdout.contains("pushed\tsave\tGone\ta\n") && created.stdout.contains("recreated\tGone\n"),
                "\(created.stdout) \(created.stderr)")
        #expect(try s.ck("device", "show", "phone", "-o", "plain").stdout.contains("pending saves\t0\n"))
        #expect(try s.ck("-z", "Gone", "record", "fetch", "a", "-o", "plain").stdout.hasSuffix("\ttitle=x\n"))
        // A zone deleted on the server still wins over the device's edits of it.
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "a", "-z", "Gone", "title=y").status == 0)
        #expect(try s.ck("zone", "delete", "Gone", "-y").status == 0)
        let dropped = try s.ck("sync", "phone")
        #expect(dropped.stdout.contains("dropped\tGone\ta\tzone Gone was deleted on the server"), "\(dropped.stdout) \(dropped.stderr)")
        #expect(!dropped.stdout.contains("recreated"))
        #expect(try s.ck("device", "show", "phone", "-o", "plain").stdout.contains("pending saves\t0\n"))
        #expect(try s.ck("-z", "Gone", "record", "fetch", "a").status == 3)
    }
}

/// Syncs of one device at once take turns; deleting a container takes its devices along.
@Suite struct SyncLockingTests {
    @Test func concurrentSyncsOfOneDevicePushEachEditOnce() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        for i in 0..<30 {
            #expect(try s.ck("device", "save", "phone", "Note", "--name", "n\(i)", "-z", "Notes", "i=\(i)").status == 0)
        }
        let launch = CKLaunch(s)
        let children = try (0..<4).map { i in try CKChild(launch, CKJob("sync \(i)", ["sync", "phone", "-o", "json"])) }
        let results = children.map { $0.wait() }
        for r in results { #expect(r.status == 0, "\(r.stderr)") }
        // Exactly one of them pushed the 30 edits; the others found nothing left to push.
        let pushed = results.filter { $0.stdout.contains("\"recordName\": \"n29\"") }
        #expect(pushed.count == 1, "\(results.map(\.stdout))")
        let merged = results.map(\.stdout).filter { $0.contains("\"mergedKeys\"") }
        #expect(merged.isEmpty, "a second sync re-pushed edits: \(merged)")
        #expect(try s.ck("device", "show", "phone", "-o", "json").stdout.contains("\"pendingSaves\": 0"))
        #expect(try s.ck("-z", "Notes", "changes", "zone", "-o", "plain").stdout.split(separator: "\n").count == 31)
    }

    @Test func editsOnADeviceWhileItSyncsTakeTurnsAndAllArrive() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        let launch = CKLaunch(s)
        // Edits and syncs of one device at once: each edit is acknowledged, and none is lost or refused.
        var jobs: [CKChild] = []
        for i in 0..<12 {
            jobs.append(try CKChild(launch, CKJob("save \(i)", ["device", "save", "phone", "Note", "--name", "e\(i)", "-z", "Notes", "i=\(i)"])))
            if i % 3 == 0 { jobs.append(try CKChild(launch, CKJob("sync \(i)", ["sync", "phone"]))) }
        }
        for r in jobs.map({ $0.wait() }) { #expect(r.status == 0, "\(r.stderr)") }
        #expect(try s.ck("sync", "phone").status == 0)
        let server = try s.ck("-z", "Notes", "changes", "zone", "-o", "plain").stdout
        for i in 0..<12 { #expect(server.contains("\te\(i)\t"), "edit e\(i) never reached the server: \(server)") }
    }

    @Test func deletingAContainerDeletesItsDevices() throws {
        let s = try Sandbox()
        #expect(try s.ck("container", "create", "iCloud.com.example.Gone").status == 0)
        #expect(try s.ck("-c", "iCloud.com.example.Gone", "zone", "create", "Z").status == 0)
        #expect(try s.ck("-c", "iCloud.com.example.Gone", "sync", "phone").status == 0)
        #expect(FileManager.default.fileExists(atPath: s.dir + "/store/devices/iCloud.com.example.Gone"))
        #expect(try s.ck("container", "delete", "iCloud.com.example.Gone", "-y").status == 0)
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/store/devices/iCloud.com.example.Gone"))
    }
}

/// Notifications name the device whose change caused them, and a device is not told of its own changes.
@Suite struct DeviceNotificationTests {
    @Test func aDeviceIsNotNotifiedOfItsOwnChanges() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("subscription", "create", "database", "--id", "all").status == 0)
        #expect(try s.ck("device", "save", "ipad", "Note", "--name", "n1", "-z", "Notes", "title=x").status == 0)
        #expect(try s.ck("sync", "ipad").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n2", "title=y").status == 0)
        let all = try s.ck("notification", "list")
        let from = all.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init)[3] }
        #expect(from == ["ipad", "ck"], "\(all.stdout)")
        let ipad = try s.ck("notification", "list", "--device", "ipad")
        #expect(ipad.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init)[3] } == ["ck"])
        // iphone never fetched: APNs kept only the last of the two for it (coalescing, docs/store.md).
        #expect(try s.ck("notification", "list", "--device", "iphone").stdout == String(all.stdout.split(separator: "\n")[1]) + "\n")
        #expect(try s.ck("notification", "list", "--device", "bad name").status == 8)
    }
}
