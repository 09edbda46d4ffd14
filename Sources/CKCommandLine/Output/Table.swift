/// Aligned columns for people; tab-separated for scripts.
struct Table {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: [String]) { self.headers = headers }

    mutating func add(_ row: [String]) { rows.append(row) }

    /// Columns padded to their widest cell, with a header row.
    func aligned() -> String {
        var widths = headers.map(\.count)
        for r in rows { for (i, c) in r.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        func line(_ cells: [String]) -> String {
            var s = ""
            for (i, c) in cells.enumerated() {
                s += i == cells.count - 1 ? c : c.padding(toLength: widths[i] + 2, withPad: " ", startingAt: 0)
            }
            return s
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    /// One tab-separated line per row, no header.
    func plain() -> String {
        rows.map { $0.map(RecordText.escape).joined(separator: "\t") + "\n" }.joined()
    }
}
