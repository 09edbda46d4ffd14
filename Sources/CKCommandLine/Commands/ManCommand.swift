import Foundation
import CKCore

/// `ck man [<command>] [--dir D]`: the manual pages, generated from the command tree.
enum ManCommand {
    static let spec = CommandSpec(
        "man", summary: "Print or write ck's manual pages.",
        discussion: "Pages are generated from the same command tree as --help: ck.1, and ck-<command>.1 for each command. With --dir every page is written into that directory (made if missing); otherwise one page is printed on stdout, ck.1 unless a command is named.",
        arguments: [ArgumentSpec("command", help: "Print the page of this command, e.g. record for ck-record.1.", optional: true)],
        options: [OptionSpec("dir", value: "dir", help: "Write every page into <dir>.", completion: .directory)],
        examples: [("ck man record > ck-record.1", "Write the ck-record(1) page; read it with: man -l ck-record.1"),
                   ("ck man --dir ~/.local/share/man/man1", "Install every page where man finds it for ~/.local/bin.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw UsageError("expected at most one command name", command: inv.command.path) }
        let pages = ManPageRenderer.pages()
        guard let dir = inv.parsed.value("dir") else {
            let name = inv.positionals.first.map { "ck-\($0).1" } ?? "ck.1"
            guard let page = pages.first(where: { $0.fileName == name }) else {
                throw UsageError("no manual page for '\(inv.positionals.first ?? "")'; pages: \(pages.map(\.fileName).joined(separator: ", "))",
                                 command: inv.command.path)
            }
            inv.out(page.text)
            return ExitCode.success
        }
        guard inv.positionals.isEmpty else { throw UsageError("--dir writes every page; name no command", command: inv.command.path) }
        let base = dir.hasPrefix("/") ? dir : inv.terminal.workingDirectory + "/" + dir
        do {
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        } catch {
            throw CKError(.invalidArguments, "cannot write manual pages into '\(dir)': \(error.localizedDescription)")
        }
        for page in pages { try inv.writeFile(Array(page.text.utf8), to: base + "/" + page.fileName) }
        try inv.emit(Written(files: pages.map { base + "/" + $0.fileName }, directory: base))
        return ExitCode.success
    }
}
