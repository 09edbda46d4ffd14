import CKCore
import Foundation
import Testing

/// The smaller fidelity gaps of issue 30, met as a user meets them: a request uuid in every JSON error, the client
/// record of a create conflict, record names with '/', DELETE_SELF after the request in the default zone, and the
/// zone a query without one searches.
@Suite struct FidelityGapsTests {
    /// A request uuid as CloudKit writes one: 8-4-4-4-12 hex digits.
    static func isUUID(_ s: String?) -> Bool {
        guard let s else { return false }
        let parts = s.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
        return parts == [8, 4, 4, 4, 12] && s.allSatisfy { $0 == "-" || $0.isHexDigit }
    }

    // MARK: uuid in every error

    @Test func everyJSONErrorCarriesTheRequestUUID() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=a").status == 0)

        // A whole-command error: the object on stderr has the uuid beside its codes.
        let missing = try s.ck("record", "fetch", "nope", "-o", "json")
        #expect(missing.status == 3, "\(missing)")
        let one = try JSON.parse(missing.stderr)
        #expect(FidelityGapsTests.isUUID(one["uuid"]?.stringValue), "\(missing.stderr)")
        #expect(one["serverErrorCode"] == .string("NOT_FOUND"))

        // Per-item errors: the same uuid in the stdout document, in the stderr object and in each of its items.
        let mixed = try s.ck("record", "fetch", "n1", "nope", "-o", "json")
        #expect(mixed.status == 10, "\(mixed)")
        let err = try JSON.parse(mixed.stderr), out = try JSON.parse(mixed.stdout)
        let uuid = try #require(err["uuid"]?.stringValue)
        #expect(FidelityGapsTests.isUUID(uuid))
        #expect(err["errors"]?.arrayValue?.first?["uuid"] == .string(uuid), "\(mixed.stderr)")
        #expect(out["errors"]?.arrayValue?.first?["uuid"] == .string(uuid), "\(mixed.stdout)")
        #expect(out["errors"]?.arrayValue?.first?["recordName"] == .string("nope"))
        // One request per command: another command answers with another uuid.
        #expect(uuid != one["uuid"]?.stringValue)

        // A batch save's failed record, in jsonl (the error object only).
        try s.write(#"{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"x"}}}"# + "\n"
                    + #"{"recordName":"n2","recordType":"Note","fields":{"title":{"value":"y"}}}"# + "\n", to: "b.jsonl")
        let batch = try s.ck("record", "save", "--batch", "b.jsonl", "-o", "jsonl")
        #expect(batch.status == 10, "\(batch)")
        let b = try JSON.parse(batch.stderr)
        #expect(FidelityGapsTests.isUUID(b["uuid"]?.stringValue))
        #expect(b["errors"]?.arrayValue?.first?["id"] == .string("n1"))
        #expect(b["errors"]?.arrayValue?.first?["uuid"] == b["uuid"], "\(batch.stderr)")

        // A subscription delete's failed item.
        let sub = try s.ck("subscription", "delete", "nope", "-o", "json")
        let subErr = try JSON.parse(sub.stderr), subOut = try JSON.parse(sub.stdout)
        #expect(FidelityGapsTests.isUUID(subErr["uuid"]?.stringValue), "\(sub)")
        #expect(subOut["errors"]?.arrayValue?.first?["uuid"] == subErr["uuid"], "\(sub.stdout)")

        // People's one-line message stays as it was: the uuid is for programs.
        let plain = try s.ck("record", "fetch", "nope")
        #expect(plain.stderr.hasPrefix("ck: unknownItem (11): Record not found: 'nope' in zone _defaultZone\n"), "\(plain.stderr)")
        let words = plain.stderr.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        #expect(!plain.stderr.contains("uuid") && !words.contains(where: FidelityGapsTests.isUUID), "\(plain.stderr)")
    }

    // MARK: client record of a create conflict

    @Test func aCreateConflictCarriesTheClientRecord() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=a", "priority=1").status == 0)
        let r = try s.ck("record", "save", "Note", "--name", "n1", "title=b", "-o", "json")
        #expect(r.status == 4, "\(r)")
        let e = try JSON.parse(r.stderr)
        #expect(e["serverErrorCode"] == .string("EXISTS"))
        // The record the create sent, as typed, and no change tag: it had none.
        #expect(e["clientRecord"] == .object(["recordName": .string("n1"), "recordType": .string("Note"),
                                              "fields": .object(["title": .object(["value": .string("b")])])]), "\(r.stderr)")
        #expect(e["serverRecord"]?["recordChangeTag"] == .string("1"))
        #expect(e["serverRecord"]?["fields"]?["title"]?["value"] == .string("a"))

        // For people, both versions; the client's is new.
        let plain = try s.ck("record", "save", "Note", "--name", "n1", "title=b")
        #expect(plain.stderr.contains("\n  client: new: title=b\n"), "\(plain.stderr)")

        // A batch's failed create carries it in its item.
        try s.write(#"{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"x"}}}"# + "\n"
                    + #"{"recordName":"n2","recordType":"Note","fields":{"title":{"value":"y"}}}"# + "\n", to: "b.jsonl")
        let batch = try s.ck("record", "save", "--batch", "b.jsonl", "-o", "jsonl")
        let item = try JSON.parse(batch.stderr)["errors"]?.arrayValue?.first
        #expect(item?["clientRecord"]?["fields"]?["title"]?["value"] == .string("x"), "\(batch.stderr)")
        #expect(item?["serverRecord"]?["fields"]?["title"]?["value"] == .string("a"))
    }

    // MARK: record names with '/'

    @Test func recordNamesWithSlashesAndDotsAreNamesNotPaths() throws {
        let s = try Sandbox()
        let m = HostileInputTests.marker()
        #expect(try s.ck("zone", "create", "Work").status == 0)
        let names = ["a/b", "../x", "..", ".", "../../../../../../../\(m)", "/tmp/\(m)", "a/\(m)/"]
        for name in names {
            for zone in ["_defaultZone", "Work"] {
                let save = try s.ck("-z", zone, "record", "save", "Note", "--name", name, "title=t", "priority=1", "-o", "name")
                #expect(save.status == 0 && save.stdout == name + "\n", "save \(name) in \(zone): \(save)")
                // A reference to it, and the reference's DELETE_SELF.
                let ref = try s.ck("-z", zone, "record", "save", "Item", "--name", "i-" + name, "owner:reference:deleteSelf=" + name)
                #expect(ref.status == 0, "reference to \(name): \(ref)")
                let fetch = try s.ck("-z", zone, "record", "fetch", "-o", "json", "--", name)
                #expect(try JSON.parse(fetch.stdout)["records"]?.arrayValue?.first?["recordName"] == .string(name), "fetch \(name): \(fetch)")
            }
        }
        let query = try s.ck("-z", "Work", "query", "Note", "priority == 1", "-o", "name")
        #expect(Set(query.stdout.split(separator: "\n").map(String.init)) == Set(names), "\(query)")
        let changes = try s.ck("changes", "zone", "Work", "-o", "json")
        let changed = try JSON.parse(changes.stdout)["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } ?? []
        #expect(Set(changed) == Set(names + names.map { "i-" + $0 }), "\(changes)")

        // Export and import keep them: removed after the export, they are back after the import.
        let export = try s.ck("export", "--file", "out.json")
        #expect(export.status == 0, "\(export)")
        for name in names { #expect(try s.ck("-z", "Work", "record", "delete", "-y", "--", name).status == 0) }
        let load = try s.ck("import", "out.json", "--replace")
        #expect(load.status == 0, "\(load)")
        for name in names {
            let fetched = try s.ck("-z", "Work", "record", "fetch", "-o", "name", "--", name)
            #expect(fetched.stdout == name + "\n", "after import, \(name): \(fetched)")
        }

        // Delete: the record and, by its DELETE_SELF reference, its item.
        for name in names {
            let del = try s.ck("-z", "Work", "record", "delete", "-y", "-o", "name", "--", name)
            #expect(del.status == 0, "delete \(name): \(del)")
            #expect(try s.ck("-z", "Work", "record", "fetch", "--", "i-" + name).status == 3, "i-\(name) outlived \(name)")
        }
        // No name became a file: nothing carries the marker, in the store or outside it.
        HostileInputTests.noEscape(s, m)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/" + m))
        #expect(try s.ck("doctor").status == 0)
    }

    // MARK: DELETE_SELF in the default zone

    @Test func deleteSelfInTheDefaultZoneHappensAfterTheRequest() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Work").status == 0)
        for zone in ["_defaultZone", "Work"] {
            #expect(try s.ck("-z", zone, "record", "save", "Note", "--name", "n1", "title=One").status == 0)
            #expect(try s.ck("-z", zone, "record", "save", "Item", "--name", "i1", "owner:reference:deleteSelf=n1").status == 0)
            #expect(try s.ck("-z", zone, "record", "save", "Item", "--name", "i2", "owner:reference:deleteSelf=i1").status == 0)
        }
        // Custom zone: immediate, the answer lists the cascade.
        let custom = try s.ck("-z", "Work", "record", "delete", "-y", "n1", "-o", "name")
        #expect(custom.status == 0 && custom.stdout == "n1\ni1\ni2\n", "\(custom)")
        // Default zone: asynchronous in CloudKit; the request's answer has only what it deleted…
        let plain = try s.ck("record", "delete", "-y", "n1", "-o", "name")
        #expect(plain.status == 0 && plain.stdout == "n1\n", "\(plain)")
        // …and by the next read the owned records, chained, are gone.
        let after = try s.ck("record", "fetch", "i1", "i2", "-o", "json")
        #expect(after.status == 10, "\(after)")
        #expect(try JSON.parse(after.stdout)["records"]?.arrayValue?.isEmpty == true, "\(after.stdout)")

        // Within the request the owned record is still there: a later operation of it may update it.
        #expect(try s.ck("record", "save", "Note", "--name", "n2", "title=Two").status == 0)
        #expect(try s.ck("record", "save", "Item", "--name", "i3", "owner:reference:deleteSelf=n2", "n=1").status == 0)
        try s.write(#"{"operationType":"forceDelete","record":{"recordName":"n2"}}"# + "\n"
                    + #"{"operationType":"forceUpdate","record":{"recordName":"i3","recordType":"Item","fields":{"n":{"value":2}}}}"# + "\n",
                    to: "mixed.jsonl")
        let mixed = try s.ck("record", "save", "--batch", "mixed.jsonl", "-o", "plain")
        #expect(mixed.status == 0, "\(mixed)")
        #expect(mixed.stdout.hasPrefix("n2\tNote\tdeleted\ni3\tItem\t"), "\(mixed.stdout)")
        #expect(mixed.stdout.split(separator: "\n").count == 2, "\(mixed.stdout)")
        #expect(try s.ck("record", "fetch", "i3").status == 3, "i3 outlived n2")
        #expect(try s.ck("doctor").status == 0)
    }

    // MARK: over HTTP

    @Test func overWebServicesSlashNamesCreateConflictsAndTheDefaultZoneCascade() throws {
        let f = try WireFixture(setup: [["record", "save", "Note", "--name", "n1", "title=One"],
                                        ["record", "save", "Item", "--name", "i1", "owner:reference:deleteSelf=n1"]])
        // A name with '/' travels in the body, as CloudKit's do.
        let made = try f.ok("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"2/2/ab","recordType":"Note","fields":{"title":{"value":"x"}}}}]}"#)
        #expect(try WireFixture.only(made)["recordName"] == .string("2/2/ab"), "\(made.serialized())")
        #expect(try f.lookup("2/2/ab", zone: "_defaultZone")["fields"]?["title"]?["value"] == .string("x"))
        // A create of an existing record: EXISTS with Web Services' keys only (it has none for the client record).
        let again = try f.ok("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"2/2/ab","recordType":"Note","fields":{"title":{"value":"y"}}}}]}"#)
        let item = try WireFixture.only(again)
        #expect(item["serverErrorCode"] == .string("EXISTS"))
        #expect(WireFixture.keys(item) == ["reason", "recordName", "serverErrorCode"], "\(item.serialized())")
        // The default zone's cascade: the answer is the delete alone, and the next request no longer finds i1.
        let del = try f.ok("records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"n1"}}]}"#)
        #expect(try WireFixture.only(del)["recordName"] == .string("n1"))
        #expect(try f.lookup("i1", zone: "_defaultZone")["serverErrorCode"] == .string("NOT_FOUND"))
    }

    // MARK: the zone of a query without one

    @Test func aQueryWithoutAZoneSearchesTheDefaultZoneOnly() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Work").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "d1", "priority=1").status == 0)
        #expect(try s.ck("-z", "Work", "record", "save", "Note", "--name", "w1", "priority=1").status == 0)
        // Web Services' records/query: zoneWide false (its default) is the default zone only (docs/query.md).
        let plain = try s.ck("query", "Note", "priority == 1", "-o", "name")
        #expect(plain.status == 0 && plain.stdout == "d1\n", "\(plain)")
        let wide = try s.ck("query", "Note", "priority == 1", "--zone-wide", "-o", "name")
        #expect(Set(wide.stdout.split(separator: "\n")) == ["d1", "w1"], "\(wide)")
        let zoned = try s.ck("-z", "Work", "query", "Note", "priority == 1", "-o", "name")
        #expect(zoned.stdout == "w1\n", "\(zoned)")
    }
}
