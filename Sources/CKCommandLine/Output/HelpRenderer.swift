/// Renders `--help` text from the command tree.
enum HelpRenderer {
    static let width = 80
    static let column = 26

    static func usage(_ c: CommandSpec) -> String {
        var parts = [c.path]
        if !c.visibleSubcommands.isEmpty && c.run == nil { parts.append("<subcommand>") }
        parts += c.arguments.map(\.synopsis)
        if !c.options.filter({ !$0.hidden }).isEmpty { parts.append("[options]") }
        return parts.joined(separator: " ")
    }

    static func help(_ c: CommandSpec, globals: [OptionSpec]) -> String {
        var out = wrap("OVERVIEW: \(c.summary)", indent: 0) + "\n\n"
        if !c.discussion.isEmpty { out += wrap(c.discussion, indent: 0) + "\n\n" }
        out += "USAGE: \(usage(c))\n"
        if !c.arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for a in c.arguments { out += item("<\(a.name)>", a.help) }
        }
        let opts = c.options.filter { !$0.hidden }
        if !opts.isEmpty {
            out += "\nOPTIONS:\n"
            for o in opts { out += item(o.synopsis, o.help + choicesNote(o)) }
        }
        if c.parent == nil {
            out += "\nGLOBAL OPTIONS:\n"
            for o in globals where !o.hidden { out += item(o.synopsis, o.help + choicesNote(o)) }
        } else {
            out += "\n" + wrap("GLOBAL OPTIONS: --data-dir, -c/--container, -e/--env, --db, -z/--zone, --as, -o/--output, -q, --no-color (see 'ck --help').", indent: 0) + "\n"
        }
        let subs = c.visibleSubcommands
        if !subs.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            for s in subs { out += item(s.name, s.summary) }
            out += "\n  See '\(c.path) <subcommand> --help' for detailed help.\n"
        }
        if !c.examples.isEmpty {
            out += "\nEXAMPLES:\n"
            for e in c.examples {
                out += "  \(e.command)\n"
                out += wrap(e.explanation, indent: 6) + "\n"
            }
        }
        return out
    }

    static func choicesNote(_ o: OptionSpec) -> String {
        o.choices.isEmpty || o.choices.allSatisfy({ o.help.contains($0) }) ? "" : " (\(o.choices.joined(separator: ", ")))"
    }

    static func item(_ name: String, _ text: String) -> String {
        let lead = "  " + name
        if lead.count + 2 <= column {
            let first = lead.padding(toLength: column, withPad: " ", startingAt: 0)
            let body = wrap(text, indent: column)
            return first + String(body.dropFirst(column)) + "\n"
        }
        return lead + "\n" + wrap(text, indent: column) + "\n"
    }

    /// Wraps words at `width`, each line indented by `indent` spaces; blank lines in the text are kept.
    static func wrap(_ text: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if paragraph.isEmpty { lines.append(""); continue }
            var line = pad
            for word in paragraph.split(separator: " ") {
                if line.count > indent && line.count + 1 + word.count > width {
                    lines.append(line)
                    line = pad
                }
                line += (line.count > indent ? " " : "") + word
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
