import CKCore

extension ManCommand {
    /// `man --dir`: `{"files": [path]}`; plain the paths, for people a sentence.
    struct Written: OutcomeOutput {
        var files: [String]
        /// The directory the pages went into.
        var directory: String

        var json: JSON { .object(["files": .array(files.map { .string($0) })]) }
        var line: String { files.joined(separator: "\n") }
        var sentence: String { "Wrote \(files.count) manual pages to \(directory)" }
    }
}
