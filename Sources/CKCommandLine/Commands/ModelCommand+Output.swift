import CKCore

/// What `ck model check` and `ck model diff` print.
extension ModelCommand {
    /// `model check`: `{"findings": [finding], "errors", "warnings", "models", "files"}`; jsonl: one finding a line.
    struct Checked: CommandOutput {
        var findings: [ModelFinding]
        /// The synced models checked, and the files read.
        var models: [String]
        var files: [String]

        var errors: Int { findings.filter { $0.severity == .error }.count }
        var warnings: Int { findings.count - errors }

        var json: JSON {
            .object(["findings": .array(findings.map(\.json)), "errors": .int(Int64(errors)), "warnings": .int(Int64(warnings)),
                     "models": .array(models.map { .string($0) }), "files": .array(files.map { .string($0) })])
        }
        var jsonLines: [JSON] { findings.map(\.json) }
        var plain: [String] {
            findings.map { f in
                [f.location.description, f.severity.rawValue, f.rule, f.subject, f.summary, f.message ?? "", f.fix ?? ""]
                    .map(RecordText.escape).joined(separator: "\t")
            }
        }
        var table: String {
            var lines: [String] = []
            for f in findings {
                lines.append(headline(f))
                if let m = f.message { lines.append("  CloudKit: " + m) }
                if let fix = f.fix { lines.append("  fix: " + fix) }
            }
            let scope = "\(models.count) model\(models.count == 1 ? "" : "s") in \(files.count) file\(files.count == 1 ? "" : "s")"
            lines.append(findings.isEmpty ? "No problems: \(scope)."
                         : "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"): \(scope).")
            return Self.text(lines)
        }
    }

    /// `model diff`: `{"against", "additions", "conflicts", "kept", "other"}`; jsonl: one change a line.
    struct Compared: CommandOutput {
        var against: String
        var diff: ModelSchemaDiff

        var json: JSON {
            .object(["against": .string(against), "additions": .array(diff.additions.map(\.json)),
                     "conflicts": .array(diff.conflicts.map(\.json)), "kept": .array(diff.kept.map(\.json)),
                     "other": .array(diff.other.map(\.json))])
        }
        var jsonLines: [JSON] { diff.all.map(\.json) }
        var plain: [String] { diff.all.map(\.summary) }
        var table: String { Self.text(plain + (diff.all.isEmpty ? ["No differences: \(against) has the model's schema."] : [])) }
        var notes: [String] {
            let c = diff.conflicts.count, k = diff.kept.count
            return (c == 0 ? [] : ["\(c) field\(c == 1 ? "" : "s") marked ! \(against) has with another type; CloudKit can't change a field's type"])
                + (k == 0 ? [] : ["\(k) thing\(k == 1 ? "" : "s") marked - \(against) keeps though the model no longer has \(k == 1 ? "it" : "them"): schemas are additive"])
        }
    }
}
