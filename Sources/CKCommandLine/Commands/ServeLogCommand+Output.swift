import CKCore
import CKServe

extension ServeLogCommand {
    /// The requests, as they are read: `-o json` an array of entries (`RequestLog.Entry.json`: seq, time, method,
    /// path, container, database, operation, caller, status, serverErrorCode, reason, rule, duration in ms,
    /// requestID), or one entry a line when following; `-o jsonl` one entry a line; plain one tab-separated line a
    /// request (time, status, method, operation, container/database, caller, code, ms, requestID); a table for
    /// people.
    struct Log: StreamedOutput {
        let follow: Bool
        private var kept: [RequestLog.Entry] = []
        private var headed = false

        init(follow: Bool) { self.follow = follow }

        static let headers = ["TIME", "STATUS", "METHOD", "OPERATION", "CONTAINER/DATABASE", "CALLER", "CODE", "MS"]
        /// Column widths of a followed table, which can't wait for the widest cell.
        static let widths = [12, 6, 7, 22, 34, 24, 22, 8]

        /// The cells of a request: time of day (UTC), status, method, operation (the path when it has none),
        /// where, caller, serverErrorCode, duration in ms.
        static func cells(_ e: RequestLog.Entry) -> [String] {
            let iso = ISO8601.format(milliseconds: e.time)
            let time = iso.count >= 23 ? String(iso.dropFirst(11).prefix(12)) : iso
            let place = [e.container, e.database].compactMap { $0 }.joined(separator: "/")
            return [time, String(e.status), e.method, e.operation ?? e.path, place.isEmpty ? "-" : place, e.caller ?? "-",
                    e.serverErrorCode ?? "-", String(format: "%.1f", e.duration * 1000)]
        }

        static func plainLine(_ e: RequestLog.Entry) -> String {
            var c = cells(e)
            c[0] = ISO8601.format(milliseconds: e.time)
            return (c + [e.requestID]).map(RecordText.escape).joined(separator: "\t")
        }

        /// A row of a followed table, in fixed widths.
        static func fixedRow(_ cells: [String]) -> String {
            var s = ""
            for (i, c) in cells.enumerated() {
                s += i == cells.count - 1 ? c : c.padding(toLength: max(widths[i], c.count + 1) + 1, withPad: " ", startingAt: 0)
            }
            return s + "\n"
        }

        mutating func add(_ page: [RequestLog.Entry], as format: OutputFormat) -> String {
            switch format {
            case .jsonl:
                return Self.text(page.map { $0.json.serialized() })
            case .json where follow:
                return Self.text(page.map { $0.json.serialized() })
            case .plain, .name:
                return Self.text(page.map(Self.plainLine))
            case .table where follow:
                var out = ""
                if !headed {
                    headed = true
                    out += Self.fixedRow(Self.headers)
                }
                for e in page { out += Self.fixedRow(Self.cells(e)) }
                return out
            case .json, .table:
                kept += page
                return ""
            }
        }

        func end(as format: OutputFormat) -> Rendered {
            switch format {
            case .json where !follow:
                return Rendered(JSON.array(kept.map(\.json)).pretty() + "\n")
            case .table where !follow:
                if kept.isEmpty { return Rendered("No requests yet.\n") }
                var t = Table(Self.headers)
                for e in kept { t.add(Self.cells(e)) }
                return Rendered(t.aligned())
            default:
                return Rendered("")
            }
        }

        static func text(_ lines: [String]) -> String {
            var s = ""
            for l in lines { s += l + "\n" }
            return s
        }
    }
}
