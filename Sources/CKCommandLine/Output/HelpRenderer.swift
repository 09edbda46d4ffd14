/// Renders `--help` text from the command tree.
enum HelpRenderer {
    static let width = 80
    static let column = 26

    static func usage(_ c: CommandSpec) -> String {
        var parts = [c.path]
        if !c.visibleSubcommands.isEmpty && c.run == nil { parts.append("<subcommand>") }
        parts += c.arguments.map(\.synopsis)
        // ck itself takes the global options (its OPTIONS are those).
        if !c.options.filter({ !$0.hidden }).isEmpty || c.parent == nil { parts.append("[options]") }
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
            out += "\n" + wrap("GLOBAL OPTIONS: " + GlobalOptions.perCommand(globals).map(GlobalOptions.spelling).joined(separator: ", ") + " (see 'ck --help').", indent: 0) + "\n"
        }
        let subs = c.visibleSubcommands
        if !subs.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            for s in subs { out += item(s.name, s.summary) }
            out += "\n  See '\(c.path) <subcommand> --help' for detailed help.\n"
        }
        if c.parent == nil {
            out += "\n" + wrap("HELP TOPICS: " + HelpCommand.topicNames.joined(separator: ", ") + " (see 'ck help <topic>').", indent: 0) + "\n"
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
        let leadWidth = width(lead)
        if leadWidth + 2 <= column {
            // The first line's indent is replaced by the name, padded to the column.
            var body = wrapBytes(text, indent: column)
            body.removeFirst(min(prefixLength(body, scalars: column), body.count))
            return lead + String(repeating: " ", count: column - leadWidth) + String(decoding: body, as: UTF8.self) + "\n"
        }
        return lead + "\n" + wrap(text, indent: column) + "\n"
    }

    /// Wraps words at `width`, each line indented by `indent` spaces; blank lines in the text are kept.
    static func wrap(_ text: String, indent: Int) -> String {
        String(decoding: wrapBytes(text, indent: indent), as: UTF8.self)
    }

    /// Width in columns as help counts it: Unicode scalars (help text has no combining marks). Working on UTF-8
    /// bytes keeps `ck help` from paying for grapheme breaking and Foundation's padding on every line.
    static func width(_ s: String) -> Int {
        var n = 0
        for b in s.utf8 where b & 0xC0 != 0x80 { n += 1 }
        return n
    }

    /// The number of bytes that hold the first `scalars` scalars of `bytes`.
    static func prefixLength(_ bytes: [UInt8], scalars: Int) -> Int {
        var seen = 0, i = 0
        while i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 {
                if seen == scalars { return i }
                seen += 1
            }
            i += 1
        }
        return bytes.count
    }

    static func wrapBytes(_ text: String, indent: Int) -> [UInt8] {
        let space = UInt8(ascii: " "), newline = UInt8(ascii: "\n")
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8 * indent)
        var firstLine = true
        func newLine() {
            if !firstLine { out.append(newline) }
            firstLine = false
        }
        var text = text
        text.withUTF8 { bytes in
            var p = 0
            while p <= bytes.count {
                var end = p
                while end < bytes.count, bytes[end] != newline { end += 1 }
                newLine()
                if end > p {
                    // One paragraph: words split at spaces (runs of spaces count as one).
                    out.append(contentsOf: repeatElement(space, count: indent))
                    var lineWidth = indent
                    var i = p
                    while i < end {
                        while i < end, bytes[i] == space { i += 1 }
                        if i == end { break }
                        var j = i, wordWidth = 0
                        while j < end, bytes[j] != space {
                            if bytes[j] & 0xC0 != 0x80 { wordWidth += 1 }
                            j += 1
                        }
                        if lineWidth > indent && lineWidth + 1 + wordWidth > width {
                            newLine()
                            out.append(contentsOf: repeatElement(space, count: indent))
                            lineWidth = indent
                        }
                        if lineWidth > indent { out.append(space); lineWidth += 1 }
                        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<j]))
                        lineWidth += wordWidth
                        i = j
                    }
                }
                p = end + 1
            }
        }
        return out
    }
}
