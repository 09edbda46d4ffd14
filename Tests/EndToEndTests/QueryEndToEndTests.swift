import Foundation
import Testing

@Suite struct QueryEndToEndTests {
    /// A store with 25 notes n01…n25: count = i, title "Note i", every third tagged "work", a place on some.
    func seeded() throws -> Sandbox {
        let s = try Sandbox()
        var lines: [String] = []
        for i in 1...25 {
            let name = String(format: "n%02d", i)
            var fields = #""title":{"value":"Note \#(i)"},"count":{"value":\#(i)},"tags":{"value":["\#(i % 3 == 0 ? "work" : "home")"],"type":"STRING_LIST"}"#
            if i <= 3 {
                let lat = [37.3349, 37.7749, 51.5074][i - 1], lon = [-122.0090, -122.4194, -0.1278][i - 1]
                fields += #","place":{"value":{"latitude":\#(lat),"longitude":\#(lon)},"type":"LOCATION"}"#
            }
            lines.append(#"{"recordName":"\#(name)","recordType":"Note","fields":{\#(fields)}}"#)
        }
        let r = try s.run(["record", "save", "--batch", "-", "-q"], stdin: lines.joined(separator: "\n"))
        #expect(r.status == 0, "\(r.stderr)")
        return s
    }

    func names(_ r: Sandbox.Result) -> [String] {
        r.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
    }

    @Test func listingWithoutFiltersNeedsTheRecordIDIndex() throws {
        let s = try seeded()
        let r = try s.ck("query", "Note")
        #expect(r.status == 8)
        #expect(r.stderr.hasPrefix("ck: invalidArguments (12): Type is not marked indexable\n"))
        #expect(r.stderr.contains("ck schema index Note ___recordID --queryable"))
        try s.ck("schema", "index", "Note", "___recordID", "--queryable")
        let ok = try s.ck("query", "Note")
        #expect(ok.status == 0)
        #expect(names(ok).count == 25)
    }

    @Test func predicateSortAndRefusalWithColumn() throws {
        let s = try seeded()
        let r = try s.ck("query", "Note", "count > 20 AND tags CONTAINS 'home'", "--sort", "-count")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(names(r) == ["n25", "n23", "n22"])
        let bad = try s.ck("query", "Note", "count > 20 OR count < 2")
        #expect(bad.status == 8)
        #expect(bad.stderr.contains("column 12"))
        #expect(bad.stderr.contains("  count > 20 OR count < 2\n             ^\n"))
        #expect(bad.stderr.contains("hint:"))
        let sortSystem = try s.ck("query", "Note", "count > 1", "--sort", "-creationDate")
        #expect(sortSystem.status == 8)
        #expect(sortSystem.stderr.contains("Field '___createTime' is not marked sortable"))
    }

    @Test func pagingWithCursorsResumesAfterTheLastRecord() throws {
        let s = try seeded()
        let first = try s.ck("query", "Note", "count >= 1", "--sort", "count", "--limit", "10")
        #expect(names(first) == (1...10).map { String(format: "n%02d", $0) })
        let cursorLine = try #require(first.stderr.split(separator: "\n").first { $0.hasPrefix("ck: more results: --cursor ") })
        let cursor = String(cursorLine.dropFirst("ck: more results: --cursor ".count))
        // A record added meanwhile, sorting before the cursor, does not shift the next page.
        try s.ck("record", "save", "Note", "--name", "n00", "count=0", "title=zero")
        let second = try s.ck("query", "Note", "count >= 1", "--sort", "count", "--limit", "10", "--cursor", cursor)
        #expect(names(second) == (11...20).map { String(format: "n%02d", $0) })
        // The cursor belongs to that query only.
        let other = try s.ck("query", "Note", "count >= 2", "--sort", "count", "--cursor", cursor)
        #expect(other.status == 8 && other.stderr.contains("another query"))
        // Production has no Note type yet: CloudKit answers unknownItem before looking at the cursor.
        let prod = try s.ck("-e", "production", "query", "Note", "count >= 1", "--cursor", cursor)
        #expect(prod.status == 3 && prod.stderr.contains("Did not find record type: Note"))
        let all = try s.ck("query", "Note", "count >= 1", "--sort", "count", "--limit", "7", "--all")
        #expect(names(all).count == 25)
        #expect(!all.stderr.contains("more results"))
        let json = try s.ck("query", "Note", "count >= 1", "--limit", "20", "-o", "json")
        #expect(json.stdout.contains("\"continuationMarker\": \"ck1."))
    }

    @Test func distanceTokensAndArguments() throws {
        let s = try seeded()
        let near = try s.ck("query", "Note", "distanceToLocation:fromLocation:(place, %@) < 100000", "--arg", "location:37.33,-122.03")
        #expect(Set(names(near)) == ["n01", "n02"])
        let sorted = try s.ck("query", "Note", "count <= 3", "--sort", "place@51.5,-0.12")
        #expect(names(sorted) == ["n03", "n02", "n01"], "London, then San Francisco, then Cupertino")
        let tokens = try s.ck("query", "Note", "self CONTAINS 'note 7'")
        #expect(names(tokens) == ["n07"])
        let bound = try s.ck("query", "Note", "%K == %d", "--arg", "count", "--arg", "12")
        #expect(names(bound) == ["n12"])
    }

    @Test func webServicesAndCktoolFilters() throws {
        let s = try seeded()
        let ws = #"{"filterBy":[{"comparator":"GREATER_THAN","fieldName":"count","fieldValue":{"value":22,"type":"INT64"}},{"comparator":"LIST_CONTAINS","fieldName":"tags","fieldValue":{"value":"home","type":"STRING"}}],"sortBy":[{"fieldName":"count","ascending":false}]}"#
        let r = try s.ck("query", "Note", "--filters-json", ws)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(names(r) == ["n25", "n23"])
        let ck = try s.ck("query", "Note", "--filters", "count > 22", "--filters", "tags LIST_CONTAINS_ANY home", "--sort", "-count")
        #expect(names(ck) == ["n25", "n23"])
        let same = try s.ck("query", "Note", "count > 22 AND ANY tags IN {'home'}", "--sort", "-count")
        #expect(names(same) == names(ck))
        let badWS = try s.ck("query", "Note", "--filters-json", #"{"filterBy":[{"comparator":"SIMILAR","fieldName":"count","fieldValue":{"value":1}}]}"#)
        #expect(badWS.status == 8 && badWS.stderr.contains("comparator"))
    }

    @Test func explainPrintsThePlanWithoutRunning() throws {
        let s = try seeded()
        let r = try s.ck("query", "Note", "title BEGINSWITH 'Note' AND NOT (count IN {1, 2})", "--sort", "count", "--explain")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("parsed:\n  AND\n    title BEGINSWITH \"Note\" (STRING)\n    NOT\n      count IN {1 (INT64), 2 (INT64)}\n"))
        #expect(r.stdout.contains("  1. title BEGINS_WITH \"Note\" (STRING)\n  2. count NOT_IN {1, 2} (LIST<INT64>)\n"))
        #expect(r.stdout.contains("indexes needed:\n  title QUERYABLE\n  count QUERYABLE\n  count SORTABLE\n"))
        // --explain refuses what the query would refuse.
        let refused = try s.ck("query", "Note", "recordName == 'n01'", "--explain")
        #expect(refused.status == 8 && refused.stderr.contains("Field 'recordName' is not marked queryable"))
        try s.ck("schema", "index", "Note", "___recordID", "--queryable")
        let json = try s.ck("query", "Note", "recordName == 'n01'", "--explain", "-o", "json")
        #expect(json.stdout.contains(#""___recordID QUERYABLE""#))
    }
}

extension QueryEndToEndTests {
    @Test func sameAnswersWithTheIndexTurnedOff() throws {
        let s = try seeded()
        let args = ["query", "Note", "count > 5 AND tags CONTAINS 'home'", "--sort", "-count", "--limit", "4", "--all"]
        let on = try s.run(args)
        let off = try s.run(args, env: ["CK_INDEX": "off"])
        #expect(on.status == 0 && off.status == 0)
        #expect(!on.stdout.isEmpty)
        #expect(on.stdout == off.stdout)
        #expect(FileManager.default.fileExists(atPath: s.dir + "/store/containers/iCloud.ck.default/development/.index.sqlite"))
    }

    /// A sort by a field the type lacks names the argument as given (no "column 0": a sort is not in the predicate)
    /// and says how ck sorts by creation or change time and how it sorts descending.
    @Test func sortByAnUnknownFieldNamesTheArgument() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "title=x")
        let hint = "hint: fields of Note: title; creationDate and modificationDate sort by when records were made and changed"
        let r = try s.ck("query", "Note", "title == 'x'", "--sort", "created")
        #expect(r.status == 8)
        #expect(r.stderr == "ck: invalidArguments (12): --sort created: Did not find field: 'created' in type: 'Note'\n"
            + hint + "; '--sort -field' sorts descending\n")
        let desc = try s.ck("query", "Note", "title == 'x'", "--sort", "-created")
        #expect(desc.stderr.hasPrefix("ck: invalidArguments (12): --sort -created: Did not find field: 'created' in type: 'Note'\n"))
        // Web Services sortBy has its own way to say descending: no '-field' there.
        let ws = try s.ck("query", "Note", "title == 'x'", "--filters-json", #"{"sortBy": [{"fieldName": "created"}]}"#)
        #expect(ws.stderr == "ck: invalidArguments (12): --filters-json: sortBy[0]: Did not find field: 'created' in type: 'Note'\n" + hint + "\n")
    }
}
