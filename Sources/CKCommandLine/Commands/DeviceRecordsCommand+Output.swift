import CKCore

extension DeviceRecordsCommand {
    /// `device records`: `{"records": [{"recordName", "recordType", "zoneName", "fields", "recordChangeTag",
    /// "pending", "changedKeys"?}]}`; jsonl a record a line; plain `zone<TAB>name<TAB>type<TAB>tag<TAB>pending`
    /// and a column per field; names the records.
    struct Records: CommandOutput {
        var records: [LocalRecord]
        /// The note for people when there are none.
        var empty: String
        var width: Int?

        private static func fieldText(_ l: LocalRecord, escape: Bool) -> String {
            l.fields.keys.sorted().compactMap { k in l.fields[k].map { k + "=" + (escape ? RecordText.escape(RecordText.display($0)) : RecordText.display($0)) } }
                .joined(separator: escape ? "\t" : " ")
        }

        var json: JSON { .object(["records": .array(records.map(recordJSON))]) }
        var jsonLines: [JSON] { records.map(recordJSON) }
        var names: [String] { records.map(\.recordName) }
        var plain: [String] {
            records.map { l in
                let cols = [l.zoneName, l.recordName, l.recordType, l.changeTag ?? "-", pendingText(l.pending)]
                let fields = Self.fieldText(l, escape: true)
                return cols.joined(separator: "\t") + (fields.isEmpty ? "" : "\t" + fields)
            }
        }
        var table: String {
            if records.isEmpty { return "" }
            var t = Table(["ZONE", "RECORD", "TYPE", "TAG", "PENDING", "FIELDS"])
            for l in records { t.add([l.zoneName, l.recordName, l.recordType, l.changeTag ?? "-", pendingText(l.pending), Self.fieldText(l, escape: false)]) }
            return t.aligned(width: width)
        }
        var notes: [String] { records.isEmpty ? [empty] : [] }
    }

    /// `device save`: the record as `device records` prints it; for people one sentence.
    struct Saved: CommandOutput {
        var record: LocalRecord
        var device: String

        private var listed: Records { Records(records: [record], empty: "", width: nil) }
        var json: JSON { listed.json }
        var jsonLines: [JSON] { listed.jsonLines }
        var names: [String] { listed.names }
        var plain: [String] { listed.plain }
        var table: String {
            "Saved \(record.recordType) \(record.recordName) in \(record.zoneName) on \(device) (pending until 'ck sync \(device)')\n"
        }
    }

    /// `device remove`: `{"recordName", "zoneName", "device", "pending": "delete" | null}` (null: the record was
    /// never on the server, so the edit is dropped); names the record.
    struct Removed: OutcomeOutput {
        var recordName: String
        var zone: String
        var device: String
        /// Only a pending save was undone: nothing waits for the next sync.
        var dropped: Bool

        var json: JSON {
            .object(["recordName": .string(recordName), "zoneName": .string(zone), "device": .string(device),
                     "pending": dropped ? .null : .string("delete")])
        }
        var names: [String] { [recordName] }
        var line: String { "\(zone)\t\(recordName)\t" + (dropped ? "dropped" : "delete") }
        var sentence: String {
            dropped ? "Dropped \(recordName) from \(device): the server never had it"
                    : "Deleted \(recordName) in \(zone) on \(device) (pending until 'ck sync \(device)')"
        }
    }
}
