import CKCore

extension AssetCommand {
    /// `asset get`: the asset dictionary (`fileChecksum`, `size`, …) with its `downloadURL`, and `file` when the
    /// bytes were written to one; plain the file, for people a sentence.
    struct Got: OutcomeOutput {
        var info: [String: JSON]
        /// The file written (nil: only the dictionary was asked for, with -o json or jsonl).
        var file: String?
        /// What the bytes are, for people: `record.field`.
        var source: String
        var size: Int

        var json: JSON { .object(info.merging(file.map { ["file": .string($0)] } ?? [:]) { $1 }) }
        var line: String { file ?? "" }
        var sentence: String { file.map { "Wrote \(size) bytes of \(source) to \($0)" } ?? "" }
    }
}
