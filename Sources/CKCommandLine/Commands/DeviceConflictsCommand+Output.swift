import CKCore

extension DeviceConflictsCommand {
    /// `device conflicts`: `{"conflicts": [{"recordName", "zoneName", "recordType", "serverRecordChangeTag",
    /// "ancestor", "client", "server", "error"}]}`; jsonl a conflict a line; plain
    /// `zone<TAB>record<TAB>type<TAB>server tag (- when deleted)<TAB>error`; names the records.
    struct List: CommandOutput {
        var conflicts: [PendingConflict]
        /// The note for people when there are none.
        var empty: String
        var width: Int?

        static func json(_ c: PendingConflict) -> JSON {
            .object(["recordName": .string(c.recordName), "zoneName": .string(c.zoneName), "recordType": .string(c.recordType),
                     "serverRecordChangeTag": c.serverChangeTag.map { .string($0) } ?? .null,
                     "ancestor": c.ancestor ?? .null, "client": c.client ?? .null, "server": c.server ?? .null,
                     "error": c.error.map { .string($0) } ?? .null])
        }

        var json: JSON { .object(["conflicts": .array(conflicts.map(Self.json))]) }
        var jsonLines: [JSON] { conflicts.map(Self.json) }
        var names: [String] { conflicts.map(\.recordName) }
        var plain: [String] {
            conflicts.map { c in
                [c.zoneName, c.recordName, c.recordType, c.serverChangeTag ?? "-", RecordText.escape(c.error ?? "-")].joined(separator: "\t")
            }
        }
        var table: String {
            if conflicts.isEmpty { return "" }
            var t = Table(["ZONE", "RECORD", "TYPE", "SERVER TAG", "WHY"])
            for c in conflicts {
                t.add([c.zoneName, c.recordName, c.recordType, c.serverChangeTag ?? "(deleted)",
                       c.error ?? (c.server == nil ? "deleted on the server" : "changed on the server")])
            }
            return t.aligned(width: width)
        }
        var notes: [String] { conflicts.isEmpty ? [empty] : [] }
    }
}
