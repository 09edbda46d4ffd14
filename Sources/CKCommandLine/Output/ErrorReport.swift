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
                terminal.writeErr(e.json.serialized() + "\n")
            } else {
                // User input inside messages is shown escaped; only ck's own colour codes reach the terminal.
                var text = "\(red)ck: \(e.code.name) (\(e.code.rawValue)):\(reset) " + printable(e.reason + "\n")
                let shown = 20
                for item in e.items.prefix(shown) {
                    text += printable("  \(item.id.isEmpty ? "(unnamed)" : item.id): \(item.error.code.name) (\(item.error.code.rawValue)): \(item.error.reason)\n")
                }
                if e.items.count > shown { text += "  … and \(e.items.count - shown) more (all of them with -o json)\n" }
                if let server = e.details["serverRecord"], e.code == .serverRecordChanged {
                    text += printable("  server: " + RecordText.summary(server) + "\n")
                    if let client = e.details["clientRecord"] { text += printable("  client: " + RecordText.summary(client) + "\n") }
                    if let ancestor = e.details["ancestorRecord"] { text += printable("  ancestor: " + RecordText.summary(ancestor) + "\n") }
                }
                if let predicate = e.details["predicate"]?.stringValue, let column = e.details["column"]?.int64Value,
                   column >= 1, !predicate.contains("\n") {
                    // Point at the offending token, as a compiler would.
                    text += printable("  " + predicate + "\n  " + String(repeating: " ", count: Int(column) - 1) + "^\n")
                }
                if let context = e.details["context"]?.stringValue { text += printable("  " + context + "\n") }
                if let after = e.retryAfter { text += "retry after \(after) seconds\n" }
                if let hint = e.hint { text += printable("hint: \(hint)\n") }
                terminal.writeErr(text)
            }
            return ExitCode.of(e.code)
        default:
            terminal.writeErr("ck: internalError (1): \(error)\n")
            return ExitCode.failure
        }
    }
}
