import CKCore

extension DoctorCommand {
    /// `ck doctor`: `{"store", "findings": [finding], "ok"}`; jsonl: one finding a line.
    struct Examined: CommandOutput {
        var store: String
        var findings: [DoctorFinding]
        var ok: Bool

        var json: JSON { .object(["store": .string(store), "findings": .array(findings.map(\.json)), "ok": .bool(ok)]) }
        var jsonLines: [JSON] { findings.map(\.json) }
        var plain: [String] {
            findings.map { f in [f.severity.rawValue, f.place, f.message, f.fix, f.repaired ? "repaired" : ""].joined(separator: "\t") }
        }
        var table: String {
            var lines = findings.isEmpty ? ["No problems found in \(store)."] : []
            for f in findings { lines += ["\(f.severity.rawValue): \(f.place): \(f.message)", "  \(f.repaired ? "repaired" : "fix"): \(f.fix)"] }
            return Self.text(lines)
        }
    }
}
