import CKCore

/// Renders ck's manual pages (man(7) macros) from the command tree: `ck.1`, and `ck-<noun>.1` for each visible noun.
///
/// All text goes through `escape`, so backslashes, hyphens, leading dots and apostrophes and
/// non-ASCII characters reach groff as escapes; `groff -mandoc -ww -z` prints nothing for these pages.
public enum ManPageRenderer {
    /// One generated page: its file name (`ck.1`, `ck-record.1`) and its man(7) source.
    public struct Page: Sendable, Equatable {
        /// File name, e.g. `ck-record.1`.
        public let fileName: String
        /// The page's man(7) source.
        public let text: String
    }

    /// Every page: `ck.1` first, then one per visible top-level command, in tree order.
    public static func pages(root: CommandSpec = CommandTree.root) -> [Page] {
        [Page(fileName: "ck.1", text: mainPage(root))]
            + root.visibleSubcommands.map { Page(fileName: fileName(for: $0), text: commandPage($0)) }
    }

    /// `ck-record.1` for `ck record`.
    public static func fileName(for command: CommandSpec) -> String {
        command.path.replacingOccurrences(of: " ", with: "-") + ".1"
    }

    /// Where things live in a store, for the FILES section: the store layout's table (kept in step with `ck help store`).
    static var storeFiles: [(path: String, meaning: String)] {
        StoreLayout.entries.filter(\.manual).map { ($0.shownPath, $0.holds) }
    }

    // MARK: Pages

    static func mainPage(_ root: CommandSpec) -> String {
        var m = Roff()
        m.header(name: root.name, summary: root.summary)
        m.section("SYNOPSIS")
        m.raw(bold(root.name) + " [" + italic("global options") + "] " + italic("command") + " [" + italic("arguments") + "]")
        m.section("DESCRIPTION")
        m.paragraphs(root.discussion)
        m.paragraphs("Every command answers " + bold("--help") + "; " + bold("ck help") + " " + italic("topic") + escape(" shows one of the topics " + HelpCommand.topics.keys.sorted().joined(separator: ", ") + "."), escaped: true)
        m.section("COMMANDS")
        for sub in root.visibleSubcommands {
            m.tagged(synopsis(sub))
            m.text(sub.summary)
            m.raw("See " + reference(sub) + ".")
        }
        m.section("GLOBAL OPTIONS")
        m.paragraphs("Global options go anywhere on the command line. A flag beats its environment variable, which beats the store\u{2019}s default.")
        options(GlobalOptions.all, into: &m)
        m.section("ENVIRONMENT")
        for v in GlobalOptions.environmentVariables {
            m.tagged(bold(v.name))
            m.text(v.meaning + ".")
        }
        m.section("FILES")
        m.paragraphs("The store root is, first match wins: " + bold("--data-dir") + ", " + bold("$CK_DATA_DIR") + ", the nearest " + bold(".ck/")
                     + " walking up from the working directory (made by " + bold("ck init") + "), else " + bold("${XDG_DATA_HOME:-~/.local/share}/ck")
                     + " (made on first use, with the container " + escape(CKStore.defaultContainerID) + "). Inside it:", escaped: true)
        for f in storeFiles {
            m.tagged(italic(f.path))
            m.text(f.meaning)
        }
        m.paragraphs("Zone logs are append\u{2011}only JSON Lines; the latest line for a record wins. Writers hold an exclusive lock and fsync before ck reports success.")
        m.section("EXIT STATUS")
        for row in ExitCode.table {
            m.tagged(bold(String(row.code)))
            m.text(capitalizedSentence(row.meaning) + (row.errors.isEmpty ? "." : ": " + row.errorText + (row.errorText.hasSuffix("\u{2026}") ? "" : ".")))
        }
        m.section("EXAMPLES")
        examples(root.examples, into: &m)
        for sub in root.visibleSubcommands {
            for e in sub.examples.prefix(1) { example(e, into: &m) }
        }
        m.section("SEE ALSO")
        m.raw(root.visibleSubcommands.map(reference).joined(separator: ",\n"))
        return m.output
    }

    static func commandPage(_ noun: CommandSpec) -> String {
        var m = Roff()
        m.header(name: noun.path.replacingOccurrences(of: " ", with: "-"), summary: noun.summary)
        let runnable = [noun].filter { $0.run != nil } + noun.allDescendants.filter { !isHidden($0) && $0.run != nil }
        m.section("SYNOPSIS")
        for (i, c) in runnable.enumerated() {
            if i > 0 { m.macro(".br") }
            m.raw(synopsis(c))
        }
        m.section("DESCRIPTION")
        m.paragraphs(noun.summary)
        if !noun.discussion.isEmpty { m.paragraphs(noun.discussion) }
        if noun.run != nil {
            details(noun, into: &m, heading: true)
        }
        let verbs = noun.allDescendants.filter { !isHidden($0) }
        if !verbs.isEmpty {
            m.section("COMMANDS")
            for verb in verbs {
                m.tagged(synopsis(verb))
                m.text(verb.summary)
                if !verb.discussion.isEmpty {
                    m.macro(".IP")
                    m.text(verb.discussion)
                }
                if verb.run != nil { details(verb, into: &m, heading: false) }
            }
        }
        m.section("GLOBAL OPTIONS")
        let globals = GlobalOptions.perCommand()
            .map { o in (o.short.map { bold("-" + String($0)) + "/" } ?? "") + bold("--" + o.long) }
        m.paragraphs(globals.dropLast().joined(separator: ", ") + " and " + (globals.last ?? "")
                     + " work with every command; see " + reference(CommandTree.root) + ".", escaped: true)
        let allExamples = ([noun] + verbs).flatMap(\.examples)
        if !allExamples.isEmpty {
            m.section("EXAMPLES")
            examples(allExamples, into: &m)
        }
        m.section("SEE ALSO")
        m.raw(([CommandTree.root] + CommandTree.root.visibleSubcommands.filter { $0 !== noun }).map(reference).joined(separator: ",\n"))
        return m.output
    }

    /// Arguments and options of a runnable command, as an indented block (or sections at the top of a page).
    static func details(_ c: CommandSpec, into m: inout Roff, heading: Bool) {
        let opts = c.options.filter { !$0.hidden }
        if c.arguments.isEmpty && opts.isEmpty { return }
        if heading {
            if !c.arguments.isEmpty {
                m.section("ARGUMENTS")
                arguments(c.arguments, into: &m)
            }
            if !opts.isEmpty {
                m.section("OPTIONS")
                options(opts, into: &m)
            }
            return
        }
        m.macro(".RS")
        arguments(c.arguments, into: &m)
        options(opts, into: &m)
        m.macro(".RE")
    }

    static func arguments(_ args: [ArgumentSpec], into m: inout Roff) {
        for a in args {
            m.tagged(italic(a.name))
            m.text(a.help + (a.optional ? " Optional." : "") + (a.repeatable ? " May be repeated." : ""))
        }
    }

    static func options(_ opts: [OptionSpec], into m: inout Roff) {
        for o in opts where !o.hidden {
            var tag = o.short.map { bold("-" + String($0)) + ", " } ?? ""
            tag += bold("--" + o.long)
            if let v = o.valueName { tag += " " + italic(v) }
            m.tagged(tag)
            var help = o.help
            if !o.choices.isEmpty { help += " One of: " + o.choices.joined(separator: ", ") + "." }
            if o.repeatable { help += " May be repeated." }
            m.text(help)
        }
    }

    static func examples(_ list: [(command: String, explanation: String)], into m: inout Roff) {
        for e in list { example(e, into: &m) }
    }

    static func example(_ e: (command: String, explanation: String), into m: inout Roff) {
        m.macro(".PP")
        m.text(e.explanation)
        m.macro(".PP")
        m.macro(".RS 4")
        m.macro(".nf")
        m.raw(bold(e.command))
        m.macro(".fi")
        m.macro(".RE")
    }

    // MARK: Pieces

    static func isHidden(_ c: CommandSpec) -> Bool {
        var cur: CommandSpec? = c
        while let x = cur { if x.hidden { return true }; cur = x.parent }
        return false
    }

    /// `\fBck zone create\fR [\fIoptions\fR] \fI<zone>\fR`.
    static func synopsis(_ c: CommandSpec) -> String {
        var parts = [bold(c.path)]
        if c.run == nil && !c.visibleSubcommands.isEmpty { parts.append(italic("subcommand")) }
        if !c.options.filter({ !$0.hidden }).isEmpty { parts.append("[" + italic("options") + "]") }
        parts += c.arguments.map(argumentSynopsis)
        return parts.joined(separator: " ")
    }

    static func argumentSynopsis(_ a: ArgumentSpec) -> String {
        var s = italic(a.name)
        if a.repeatable { s += " \\&..." }
        return a.optional ? "[" + s + "]" : s
    }

    /// `\fBck\-record\fR(1)`.
    static func reference(_ c: CommandSpec) -> String {
        bold(c.path.replacingOccurrences(of: " ", with: "-")) + "(1)"
    }

    static func capitalizedSentence(_ s: String) -> String {
        guard let first = s.first else { return s }
        return first.uppercased() + s.dropFirst()
    }

    /// Bold, and never hyphenated (`\%`).
    static func bold(_ s: String) -> String { "\\fB\\%" + escape(s) + "\\fR" }
    /// Italic, and never hyphenated (`\%`).
    static func italic(_ s: String) -> String { "\\fI\\%" + escape(s) + "\\fR" }

    /// Escapes text for roff: backslashes, hyphens (as minus signs, since most are in options and paths) and
    /// every non-ASCII character (as `\[uXXXX]`, so the source is plain ASCII).
    static func escape(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "\\": out += "\\e"
            case "-", "\u{2212}": out += "\\-"
            case "\u{2011}": out += "-"
            case "\u{2014}": out += "\\(em"
            case "\u{2013}": out += "\\(en"
            case "\u{2018}": out += "\\(oq"
            case "\u{2019}": out += "\\(cq"
            case "\u{201C}": out += "\\(lq"
            case "\u{201D}": out += "\\(rq"
            case "\u{2026}": out += "\\&...\\&"
            case "\t": out += " "
            default:
                if u.isASCII { out.unicodeScalars.append(u) } else {
                    let hex = String(u.value, radix: 16, uppercase: true)
                    out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
                }
            }
        }
        return out
    }

    /// Builds man(7) source line by line; text lines never start with `.` or `'`.
    struct Roff {
        private(set) var output = ""

        mutating func macro(_ line: String) { output += line + "\n" }

        /// Lines already escaped; each gets `\&` in front if it would read as a request.
        mutating func raw(_ text: String) {
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                let l = line.drop { $0 == " " }
                if l.isEmpty { continue }
                output += (l.hasPrefix(".") || l.hasPrefix("'") ? "\\&" : "") + l + "\n"
            }
        }

        /// Plain text; blank lines in it start new paragraphs.
        mutating func text(_ s: String, escaped: Bool = false) {
            var first = true
            for para in s.split(separator: "\n", omittingEmptySubsequences: false) {
                if para.trimmingSpaces.isEmpty { if !first { macro(".sp") }; continue }
                raw(escaped ? String(para) : ManPageRenderer.escape(String(para)))
                first = false
            }
        }

        mutating func paragraphs(_ s: String, escaped: Bool = false) {
            if s.isEmpty { return }
            macro(".PP")
            text(s, escaped: escaped)
        }

        mutating func header(name: String, summary: String) {
            macro(".TH \"\(ManPageRenderer.escape(name.uppercased()))\" \"1\" \"\" \"ck \(CommandTree.version)\" \"ck Manual\"")
            section("NAME")
            raw(ManPageRenderer.escape(name) + " \\- " + ManPageRenderer.escape(lowercasedFirst(summary.hasSuffix(".") ? String(summary.dropLast()) : summary)))
        }

        mutating func section(_ title: String) { macro(".SH \"\(title)\"") }

        mutating func tagged(_ tag: String) {
            macro(".TP")
            raw(tag)
        }

        private func lowercasedFirst(_ s: String) -> String {
            guard let f = s.first, s.dropFirst().first?.isUppercase != true else { return s }
            return f.lowercased() + s.dropFirst()
        }
    }
}

private extension Substring {
    var trimmingSpaces: Substring { drop { $0 == " " } }
}
