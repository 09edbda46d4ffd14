import CKCore

/// Turns errors into stderr text (or a JSON error object) and an exit code.
enum ErrorReport {
    /// Control characters from user input (names, file contents) are shown escaped, never sent to the terminal.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F }) else { return text }
        var out = ""
        for u in text.unicodeScalars {
            if (u.value < 0x20 && u != "\n") || u.value == 0x7F {
                out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// The longest line of an error ck prints whole; a longer one quotes some input (a predicate, a value).
    static let maxLine = 400

    /// A line cut to at most about `maxLine` characters: its start and its end (where the explanation usually is)
    /// around an ellipsis that says how long it was, so a 30 KB predicate is not echoed whole.
    static func bounded(_ line: String) -> String {
        guard line.count > maxLine else { return line }
        return String(line.prefix(240)) + "…[\(line.count) characters in all]…" + String(line.suffix(100))
    }

    /// `bounded` for each line of a text.
    static func boundedLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { bounded(String($0)) }.joined(separator: "\n")
    }

    /// The part of a predicate around `column` (1-based, in characters) shown under an error, at most 120
    /// characters with '…' where it was cut, and the caret's offset in it.
    static func window(_ predicate: String, column: Int) -> (text: String, caret: Int) {
        let chars = Array(predicate)
        guard chars.count > 120 else { return (predicate, column - 1) }
        let at = min(max(column - 1, 0), chars.count)
        let start = max(0, min(at - 60, chars.count - 120))
        let end = min(chars.count, start + 120)
        let head = start > 0 ? "…" : ""
        let tail = (end < chars.count ? "…" : "") + " (\(chars.count) characters)"
        return (head + String(chars[start..<end]) + tail, at - start + head.count)
    }

    static func report(_ error: Error, invocation: Invocation?, terminal: Terminal, json: Bool) -> Int32 {
        let red = invocation?.color == true ? "\u{1B}[31m" : "", reset = invocation?.color == true ? "\u{1B}[0m" : ""
        switch error {
        case let u as UsageError:
            if json {
                terminal.writeErr(JSON.object(["error": .string("usage"), "reason": .string(u.message),
                                                   "hint": .string("see '\(u.command) --help'")]).serialized() + "\n")
            } else {
                terminal.writeErr("\(red)ck: usage:\(reset) \(u.message)\nhint: see '\(u.command) --help'\n")
            }
            return ExitCode.usage
        case let e as CKError:
            if json {
                // Programs get the input they sent in the details; the messages are bounded as on a terminal.
                var o = e.answering(CommandRequest.uuid).json.objectValue ?? [:]
                o["reason"] = .string(boundedLines(e.reason))
                if let hint = e.hint { o["hint"] = .string(boundedLines(hint)) }
                terminal.writeErr(JSON.object(o).serialized() + "\n")
            } else {
                // User input inside messages is shown escaped; only ck's own colour codes reach the terminal.
                var text = "\(red)ck: \(e.code.name) (\(e.code.rawValue)):\(reset) " + printable(boundedLines(e.reason) + "\n")
                let shown = 20
                for item in e.items.prefix(shown) {
                    text += printable(boundedLines("  \(item.id.isEmpty ? "(unnamed)" : item.id): \(item.error.code.name) (\(item.error.code.rawValue)): \(item.error.reason)") + "\n")
                }
                if e.items.count > shown { text += "  … and \(e.items.count - shown) more (all of them with -o json)\n" }
                if let server = e.details["serverRecord"], e.code == .serverRecordChanged {
                    text += printable("  server: " + RecordText.summary(server) + "\n")
                    if let client = e.details["clientRecord"] { text += printable("  client: " + RecordText.summary(client) + "\n") }
                    if let ancestor = e.details["ancestorRecord"] { text += printable("  ancestor: " + RecordText.summary(ancestor) + "\n") }
                }
                if let predicate = e.details["predicate"]?.stringValue, let column = e.details["column"]?.int64Value,
                   column >= 1, !predicate.contains("\n") {
                    // Point at the offending token, as a compiler would (around it only, for a long predicate).
                    let shown = window(predicate, column: Int(column))
                    text += printable("  " + shown.text + "\n  " + String(repeating: " ", count: shown.caret) + "^\n")
                }
                if let context = e.details["context"]?.stringValue { text += printable(boundedLines("  " + context) + "\n") }
                if let after = e.retryAfter { text += "retry after \(after) seconds\n" }
                if let hint = e.hint { text += printable(boundedLines("hint: \(hint)") + "\n") }
                terminal.writeErr(text)
            }
            return ExitCode.of(e.code)
        default:
            terminal.writeErr("ck: internalError (1): \(error)\n")
            return ExitCode.failure
        }
    }
}
