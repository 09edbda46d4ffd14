import Foundation
import Testing

/// `ck record delete --query`: what a dry run lists, confirmation, requests of 200, query rules and permissions.
@Suite struct DeleteByQueryEndToEndTests {
    /// Saves notes n1…n<count> with done = i % 2 through one batch.
    func seed(_ s: Sandbox, count: Int, db: [String] = []) throws {
        let lines = (1...count).map { #"{"recordName": "n\#($0)", "recordType": "Note", "fields": {"done": {"value": \#($0 % 2), "type": "INT64"}}}"# }
        let r = try s.run(db + ["record", "save", "--batch", "-", "-q"], stdin: lines.joined(separator: "\n") + "\n")
        #expect(r.status == 0, "\(r.stderr)")
    }

    func names(_ s: Sandbox, _ predicate: String) throws -> [String] {
        let r = try s.ck("query", "Note", predicate, "--all")
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted()
    }

    @Test func aDryRunListsTheMatchesAndDeletesNothing() throws {
        let s = try Sandbox()
        try seed(s, count: 4)
        let r = try s.ck("record", "delete", "--query", "Note", "done == 1", "--dry-run")
        #expect(r.status == 0)
        #expect(r.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted() == ["n1", "n3"])
        #expect(r.stderr == "ck: dry run: 2 Note records would be deleted; nothing deleted\n")
        #expect(try names(s, "done >= 0") == ["n1", "n2", "n3", "n4"])
        let json = try s.ck("record", "delete", "--query", "Note", "done == 1", "--dry-run", "-o", "json")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((doc["records"] as? [[String: Any]])?.count == 2)
    }

    @Test func withoutATerminalItNeedsYesAndThenDeletes() throws {
        let s = try Sandbox()
        try seed(s, count: 4)
        let refused = try s.ck("record", "delete", "--query", "Note", "done == 1")
        #expect(refused.status == 64)
        #expect(refused.stderr.hasPrefix("ck: usage: Delete 2 Note records? Standard input is not a terminal, so ck can't ask: pass -y to go ahead\n"))
        #expect(try names(s, "done >= 0") == ["n1", "n2", "n3", "n4"])
        let r = try s.ck("record", "delete", "--query", "Note", "done == %@", "--arg", "1", "-y")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").sorted() == ["n1\tNote\tdeleted", "n3\tNote\tdeleted"])
        #expect(try names(s, "done >= 0") == ["n2", "n4"])
        // Nothing matching is not an error and asks nothing.
        let none = try s.ck("record", "delete", "--query", "Note", "done == 7")
        #expect(none.status == 0)
        #expect(none.stderr == "ck: no Note records match; nothing deleted\n")
    }

    @Test func moreThan200MatchesGoInSeveralRequests() throws {
        let s = try Sandbox()
        try seed(s, count: 450)
        let r = try s.ck("record", "delete", "--query", "Note", "done == 0", "-y")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "ck: 225 operations: sending 2 requests of at most 200 (CloudKit's limit per request)\n")
        #expect(r.stdout.split(separator: "\n").count == 225)
        let left = try names(s, "done >= 0")
        #expect(left.count == 225)
        #expect(left.allSatisfy { Int($0.dropFirst())! % 2 == 1 })
    }

    @Test func queryRulesApply() throws {
        let s = try Sandbox()
        try seed(s, count: 2)
        // No filter needs ___recordID QUERYABLE, as 'ck query' does.
        let r = try s.ck("record", "delete", "--query", "Note", "-y")
        #expect(r.status == 8)
        #expect(r.stderr.hasPrefix("ck: invalidArguments (12): Type is not marked indexable\n"))
        let or = try s.ck("record", "delete", "--query", "Note", "done == 1 OR done == 0", "-y")
        #expect(or.status == 8)
        #expect(try names(s, "done >= 0") == ["n1", "n2"])
        let misuse = try s.ck("record", "delete", "n1", "--dry-run")
        #expect(misuse.status == 64)
        #expect(misuse.stderr.hasPrefix("ck: usage: --dry-run goes with --query\n"))
    }

    @Test func recordsTheCallerMayNotWriteAreRefused() throws {
        let s = try Sandbox()
        for (user, name) in [("alice", "p1"), ("bob", "p2"), ("alice", "p3")] {
            let r = try s.ck("--db", "public", "--as", user, "record", "save", "Post", "--name", name, "n=1", "-q")
            #expect(r.status == 0, "\(r.stderr)")
        }
        // _world reads every post; _creator alone writes, so bob deletes his own and is refused the others.
        let r = try s.ck("--db", "public", "--as", "bob", "record", "delete", "--query", "Post", "n == 1", "-y")
        #expect(r.status == 10)
        #expect(r.stdout == "p2\tPost\tdeleted\n")
        #expect(r.stderr.contains("  p1: permissionFailure (10): WRITE operation not permitted\n"))
        #expect(r.stderr.contains("  p3: permissionFailure (10): WRITE operation not permitted\n"))
        let left = try s.ck("--db", "public", "query", "Post", "n == 1")
        #expect(left.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted() == ["p1", "p3"])
        // Anonymous callers can't write the public database at all.
        let anonymous = try s.ck("--db", "public", "--anonymous", "record", "delete", "--query", "Post", "n == 1", "-y")
        #expect(anonymous.status == 7, "\(anonymous.stderr)")
        #expect(anonymous.stderr.hasPrefix("ck: notAuthenticated (9): "))
        #expect(try s.ck("--db", "public", "query", "Post", "n == 1").stdout.split(separator: "\n").count == 2)
    }
}
