import CKCore

extension DeviceResolveCommand {
    /// `device resolve`: `{"recordName", "device", "take", "record": <as device records prints it> | null}` (null:
    /// the record is gone on the device); names the record.
    struct Resolved: OutcomeOutput {
        var recordName: String
        var device: String
        var take: String
        var record: LocalRecord?

        var json: JSON {
            .object(["recordName": .string(recordName), "device": .string(device), "take": .string(take),
                     "record": record.map(DeviceRecordsCommand.recordJSON) ?? .null])
        }
        var names: [String] { [recordName] }
        var line: String {
            guard let r = record else { return "-\t\(recordName)\tgone" }
            return "\(r.zoneName)\t\(recordName)\t\(DeviceRecordsCommand.pendingText(r.pending))"
        }
        var sentence: String {
            guard let r = record else { return "Resolved \(recordName) on \(device): the record is gone" }
            switch r.pending {
            case .none: return "Resolved \(recordName) in \(r.zoneName) on \(device): it is the server's record, nothing to send"
            default: return "Resolved \(recordName) in \(r.zoneName) on \(device) (pending until 'ck sync \(device)')"
            }
        }
    }
}
