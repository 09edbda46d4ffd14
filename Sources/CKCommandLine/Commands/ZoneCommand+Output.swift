import CKCore

extension ZoneCommand {
    /// `zone list` and `zone create`: `{"zones": [zone]}` (ZonesResponse); jsonl a zone a line; plain
    /// `zone<TAB>owner<TAB>capabilities`; names the zones. A zone `verb` names (created or saved) is one sentence for people.
    struct Zones: CommandOutput {
        var zones: [Zone]
        /// For one zone just created or saved: "Created zone" or "Zone".
        var verb: String? = nil
        var width: Int?

        var json: JSON { ZonesResponse(zones: zones).json }
        var jsonLines: [JSON] { ZonesResponse(zones: zones).jsonLines }
        var names: [String] { zones.map(\.zoneID.zoneName) }
        private func rows(_ headers: [String]) -> Table {
            var t = Table(headers)
            for z in zones { t.add([z.zoneID.zoneName, z.zoneID.ownerRecordName, caps(z)]) }
            return t
        }
        var plain: [String] { rows([]).plainLines }
        var table: String {
            if let verb, let z = zones.first, zones.count == 1 { return "\(verb) \(z.zoneID.zoneName) (capabilities: \(caps(z)))\n" }
            return rows(["ZONE", "OWNER", "CAPABILITIES"]).aligned(width: width)
        }
    }

    /// `zone show`: the zone with its record count (ZoneDescription); rows for people and scripts.
    struct Show: RowsOutput {
        var summary: ZoneDescription

        var json: JSON { summary.json }
        var names: [String] { [summary.zone.zoneID.zoneName] }
        var rows: [(String, String)] {
            let z = summary.zone
            var rows: [(String, String)] = [("zone", z.zoneID.zoneName), ("database", z.database.rawValue),
                                            ("owner", z.zoneID.ownerRecordName), ("capabilities", caps(z)),
                                            ("records", String(summary.recordCount))]
            if z.created > 0 { rows.append(("created", ISO8601.format(milliseconds: z.created))) }
            return rows
        }
    }

    /// `zone delete`, `purge` and `reset-encrypted`: `{"zoneID", "recordCount", "purged"?, "encryptedDataReset"?}`
    /// (ZoneDeletion); names the zone.
    struct Deleted: OutcomeOutput {
        var deletion: ZoneDeletion

        private var zoneName: String { deletion.zoneID.zoneName }
        var json: JSON { deletion.json }
        var names: [String] { [zoneName] }
        var line: String {
            zoneName + (deletion.purged ? "\tpurged\t" : deletion.encryptedDataReset ? "\tencryptedDataReset\t" : "\tdeleted\t") + String(deletion.recordCount)
        }
        var sentence: String {
            let count = deletion.recordCount
            let verb = deletion.purged ? "Purged" : deletion.encryptedDataReset ? "Reset encrypted data of" : "Deleted"
            return "\(verb) zone \(zoneName) and \(count) record\(count == 1 ? "" : "s")"
        }
    }
}
