import Foundation
import Testing

/// Quotas through the built binary: exhaustion, a delete that frees space, a save that then fits.
@Suite struct QuotaEndToEndTests {
    /// A record `name` of type Note with one field t of `n` x's: 1 + 4 + 1 + (n + 2) bytes (docs/quotas.md).
    func save(_ s: Sandbox, _ name: String, _ n: Int, _ extra: [String] = []) throws -> Sandbox.Result {
        try s.run(["record", "save", "Note", "--name", name, "t=" + String(repeating: "x", count: n)] + extra)
    }

    @Test func exhaustionThenADeleteFreesSpaceAndTheSaveFits() throws {
        let s = try Sandbox()
        #expect(try s.ck("quota", "set", "1KB").stdout == "1000\n")
        #expect(try save(s, "a", 600).status == 0)
        let over = try save(s, "b", 600, ["-o", "json"])
        #expect(over.status == 6)
        #expect(over.stderr.contains(#""serverErrorCode":"QUOTA_EXCEEDED""#) && over.stderr.contains(#""used":608"#))
        #expect(try s.ck("record", "fetch", "b").status == 3, "a refused save writes nothing")
        #expect(try s.ck("quota", "show", "-o", "plain").stdout == "quota\t1000\nused\t608\nzone\t_defaultZone\t608\ntype\tNote\t608\n")
        #expect(try s.ck("record", "delete", "a").status == 0)
        #expect(try save(s, "b", 600).status == 0)
        #expect(try s.ck("quota", "show", "-o", "plain").stdout.contains("used\t608\n"))
    }

    @Test func aBatchIsCheckedRecordByRecord() throws {
        let s = try Sandbox()
        #expect(try s.ck("quota", "set", "700").status == 0)
        let x = String(repeating: "x", count: 300)
        let batch = (1...3).map { #"{"recordName":"r\#($0)","recordType":"Note","fields":{"t":{"value":"\#(x)"}}}"# }.joined(separator: "\n")
        let r = try s.ck("record", "save", "--batch", "-", "-o", "plain", stdin: batch)
        #expect(r.status == 10)
        #expect(r.stdout.split(separator: "\n").count == 2)
        #expect(r.stderr.contains("  r3: quotaExceeded (25)"))
    }

    @Test func thePublicQuotaIsTheContainersAndSizesParse() throws {
        let s = try Sandbox()
        #expect(try s.ck("quota", "set", "1GiB", "--public").stdout == "1073741824\n")
        #expect(try s.ck("quota", "show", "--public", "-o", "json").stdout.contains("\"quota\": 1073741824"))
        #expect(try s.ck("quota", "show", "-o", "plain").stdout.hasPrefix("quota\tnone\n"), "the user's quota is separate")
        let bad = try s.ck("quota", "set", "5XB")
        #expect(bad.status == 8 && bad.stderr.contains("B, KB, MB, GB, TB (powers of 1000), KiB, MiB, GiB, TiB (powers of 1024)"))
        #expect(try s.ck("quota", "set", "none", "--public").status == 0)
        #expect(try s.ck("quota", "show", "--public", "-o", "plain").stdout.hasPrefix("quota\tnone\n"))
    }
}
