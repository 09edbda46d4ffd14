import CKCore

extension GCCommand {
    /// `ck gc`: `{"environment", "dryRun", "logs", "compacted", "linesBefore", "linesAfter", "bytesBefore", "bytesAfter",
    /// "assetsRemoved", "assetBytesRemoved"}`.
    struct Collected: OutcomeOutput {
        var environment: Environment
        var dryRun: Bool
        var report: GarbageReport

        var json: JSON {
            let r = report
            return .object([
                "environment": .string(environment.rawValue), "dryRun": .bool(dryRun),
                "logs": .int(Int64(r.logs)), "compacted": .int(Int64(r.compacted)),
                "linesBefore": .int(Int64(r.linesBefore)), "linesAfter": .int(Int64(r.linesAfter)),
                "bytesBefore": .int(Int64(r.bytesBefore)), "bytesAfter": .int(Int64(r.bytesAfter)),
                "assetsRemoved": .int(Int64(r.assetsRemoved)), "assetBytesRemoved": .int(Int64(r.assetBytesRemoved)),
            ])
        }

        var line: String {
            let r = report
            return "\(r.compacted)\t\(r.linesBefore)\t\(r.linesAfter)\t\(r.bytesBefore)\t\(r.bytesAfter)\t\(r.assetsRemoved)"
        }

        var sentence: String {
            let r = report
            return "\(dryRun ? "Would compact" : "Compacted") \(r.compacted) of \(r.logs) zone log\(r.logs == 1 ? "" : "s") in \(environment.rawValue): "
                + "\(r.linesBefore) → \(r.linesAfter) lines, \(r.bytesBefore) → \(r.bytesAfter) bytes; "
                + "\(dryRun ? "would remove" : "removed") \(r.assetsRemoved) unused asset\(r.assetsRemoved == 1 ? "" : "s")"
        }
    }
}
