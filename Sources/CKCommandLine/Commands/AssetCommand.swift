import Foundation
import CKCore

enum AssetCommand {
    static let spec = CommandSpec(
        "asset", summary: "Get an asset's bytes back from a record.",
        discussion: "CloudKit keeps an asset as bytes with a checksum and a size, and no file name; a fetch gives a downloadURL for them. ck's downloadURL is a file:// URL into the store, and 'ck asset get' copies the bytes out.",
        examples: [("ck asset get note-1 photo --file photo.jpg", "Write the photo field's bytes to photo.jpg.")],
        subcommands: [getSpec])

    static let getSpec = CommandSpec(
        "get", summary: "Write the bytes of a record's asset field to a file or stdout.",
        discussion: "Without --file the bytes go to stdout (refused on a terminal); with -o json the asset dictionary (fileChecksum, size, downloadURL) prints instead. A LIST<ASSET> field needs --index.",
        arguments: [ArgumentSpec("record", help: "Record name.", completion: .recordName),
                    ArgumentSpec("field", help: "Asset field.", completion: .field)],
        options: [OptionSpec("file", value: "path", help: "Write the bytes to <path> (replaced atomically).", completion: .file),
                  OptionSpec("index", value: "n", help: "Which asset of a LIST<ASSET> field (from 0).", rule: .integer(min: 0))],
        examples: [("ck asset get note-1 photo --file photo.jpg", "Copy the photo out."),
                   ("ck asset get note-1 scans --index 1 > page2.pdf", "The second asset of a list, to stdout."),
                   ("ck asset get note-1 photo -o json", "The asset dictionary with its downloadURL.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count == 2 else { throw UsageError("expected a record name and an asset field", command: inv.command.path) }
        let index = inv.parsed.value("index").flatMap { Int($0) }
        let db = try inv.database()
        let (record, field) = (inv.positionals[0], inv.positionals[1])
        let (asset, bytes) = try db.asset(recordName: record, field: field, index: index, zone: inv.zone)
        var info: [String: JSON] = [:]
        if case .object(let o) = FieldValue.asset(asset).valueJSON { info = o }
        info["downloadURL"] = .string(db.downloadURL(asset))
        var got = Got(info: info, source: "\(record).\(field)", size: bytes.count)
        // Without --file the bytes are the output, unless a JSON format asks for the dictionary instead.
        let dictionary = try inv.outputFormat().isJSON
        guard let file = inv.parsed.value("file") else {
            if dictionary {
                try inv.emit(got)
                return ExitCode.success
            }
            if inv.terminal.stdoutIsTTY {
                throw UsageError("the asset is \(bytes.count) bytes of binary data; give --file <path> or redirect stdout", command: inv.command.path)
            }
            inv.terminal.writeOutBytes(bytes)
            return ExitCode.success
        }
        try inv.writeFile(bytes, to: file)
        got.file = file
        try inv.emit(got)
        return ExitCode.success
    }
}
