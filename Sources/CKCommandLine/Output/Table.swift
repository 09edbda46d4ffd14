/// Aligned columns for people; tab-separated for scripts.
struct Table {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: [String]) { self.headers = headers }

    mutating func add(_ row: [String]) { rows.append(row) }

    /// Columns padded to their widest cell, with a header row; with a `width`, the last column is cut to fit it
    /// (ending in '…'), as long as at least a few of its characters still show.
    func aligned(width: Int? = nil) -> String {
        var widths = headers.map(\.count)
        for r in rows { for (i, c) in r.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        func line(_ cells: [String]) -> String {
            var s = ""
            for (i, c) in cells.enumerated() {
                s += i == cells.count - 1 ? Table.cut(c, to: width.map { $0 - s.count }) : c.padding(toLength: widths[i] + 2, withPad: " ", startingAt: 0)
            }
            return s
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    /// `text` in at most `room` characters, ending in '…' when cut; never cut below 8 characters.
    static func cut(_ text: String, to room: Int?) -> String {
        guard let room, text.count > max(room, 8) else { return text }
        return String(text.prefix(max(room, 8) - 1)) + "…"
    }

    /// One tab-separated line per row, no header, each ended by a newline.
    func plain() -> String { plainLines.map { $0 + "\n" }.joined() }

    /// The rows as tab-separated lines (cells escaped), no header.
    var plainLines: [String] { rows.map { $0.map(RecordText.escape).joined(separator: "\t") } }
}
