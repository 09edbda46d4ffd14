import CKCore
import Testing
@testable import CKCommandLine

/// "Did you mean" for commands, options, record types, zones and fields, and errors naming the environment variable a
/// value came from.
@Suite struct SuggestionTests {
    @Test func closestNameIsFoundOnlyWhenClose() {
        #expect(Names.closest(to: "recrod", among: ["record", "query", "zone"]) == "record")
        #expect(Names.closest(to: "Nte", among: ["Note", "Task"]) == "Note")
        #expect(Names.closest(to: "note", among: ["Note", "Task"]) == "Note", "case alone")
        #expect(Names.closest(to: "Notse", among: ["Notes", "Work"]) == "Notes", "two letters swapped")
        #expect(Names.closest(to: "sub", among: ["subscription", "sync", "schema"]) == "subscription", "a prefix of one name")
        #expect(Names.closest(to: "s", among: ["subscription", "sync"]) == nil)
        #expect(Names.closest(to: "xyz", among: ["record", "query"]) == nil)
        #expect(Names.closest(to: "Note", among: ["Note"]) == nil, "the name itself is no suggestion")
    }

    @Test func unknownCommandsSuggestTheCloseOne() throws {
        let h = try Harness()
        #expect(h.run(["recrod", "save"]) == 64)
        #expect(h.err == "ck: usage: unknown command 'recrod'; did you mean 'record'?\nhint: see 'ck --help'\n")
        #expect(h.run(["record", "fecth", "a"]) == 64)
        #expect(h.err.hasPrefix("ck: usage: unknown subcommand 'fecth' for 'ck record'; did you mean 'fetch'?\n"))
        #expect(h.run(["record", "frob"]) == 64)
        #expect(h.err.hasPrefix("ck: usage: unknown subcommand 'frob' for 'ck record'; try one of: save, fetch, list, delete\n"))
    }

    @Test func unknownRecordTypesZonesAndFieldsSuggestTheCloseOne() throws {
        let h = try Harness()
        #expect(h.run(["zone", "create", "Notes"]) == 0)
        #expect(h.run(["-z", "Notes", "record", "save", "Note", "--name", "n1", "title=Hi"]) == 0)
        #expect(h.run(["-z", "Notes", "query", "Nte"]) == 3)
        #expect(h.err.contains("hint: did you mean 'Note'?"), "\(h.err)")
        #expect(h.run(["-z", "Notse", "record", "fetch", "n1"]) == 3)
        #expect(h.err.contains("hint: did you mean 'Notes'? Or create it with 'ck zone create Notse'"), "\(h.err)")
        #expect(h.run(["schema", "index", "Note", "___modtime", "--sortable"]) == 3)
        #expect(h.err.contains("hint: did you mean '___modTime'?"), "\(h.err)")
        #expect(h.run(["-z", "Notes", "query", "Zebra"]) == 3)
        #expect(!h.err.contains("did you mean"), "nothing close: \(h.err)")
    }

    @Test func errorsSayWhichEnvironmentVariableGaveTheValue() throws {
        let h = try Harness()
        #expect(h.run(["record", "save", "Note", "title=Hi"]) == 0)
        #expect(h.run(["record", "fetch", "n1"], env: ["CK_ZONE": "Nowhere"]) == 3)
        #expect(h.err.hasPrefix("ck: zoneNotFound (26): Zone 'Nowhere' does not exist (from CK_ZONE)\n"), "\(h.err)")
        #expect(h.run(["-z", "Nowhere", "record", "fetch", "n1"]) == 3)
        #expect(h.err.hasPrefix("ck: zoneNotFound (26): Zone 'Nowhere' does not exist\n"), "a flag is on the line already: \(h.err)")
        #expect(h.run(["record", "fetch", "n1"], env: ["CK_CONTAINER": "iCloud.com.example.Missing"]) != 0)
        #expect(h.err.contains("(from CK_CONTAINER)"), "\(h.err)")
    }
}
