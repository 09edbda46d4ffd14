import CKCore

extension DeviceCommand {
    /// One device: `{"device", "path", "container", "environment", "user", "userRecordName", "created", "lastSync",
    /// "databaseToken", "zoneTokens": {zone: token}, "records", "pendingSaves", "pendingDeletes"}`; `device show`
    /// prints it alone, rows for people and scripts.
    struct Show: RowsOutput {
        var info: DeviceInfo

        var json: JSON {
            let i = info
            var tokens: [String: JSON] = [:]
            for (z, t) in i.zoneTokens { tokens[z] = t.map { .string($0) } ?? .null }
            return .object([
                "device": .string(i.name), "path": .string(i.path), "container": .string(i.containerID),
                "environment": .string(i.environment.rawValue), "user": .string(i.user), "userRecordName": .string(i.userRecordName),
                "created": .int(i.created), "lastSync": i.lastSync.map { .int($0) } ?? .null,
                "databaseToken": i.databaseToken.map { .string($0) } ?? .null, "zoneTokens": .object(tokens),
                "records": .int(Int64(i.serverRecordCount)), "pendingSaves": .int(Int64(i.pendingSaves)),
                "pendingDeletes": .int(Int64(i.pendingDeletes)),
            ])
        }
        var names: [String] { [info.name] }
        var rows: [(String, String)] {
            let i = info
            var rows: [(String, String)] = [
                ("device", i.name), ("user", "\(i.user) (\(i.userRecordName))"), ("container", i.containerID),
                ("environment", i.environment.rawValue), ("file", i.path),
                ("created", ISO8601.format(milliseconds: i.created)),
                ("last sync", i.lastSync.map { ISO8601.format(milliseconds: $0) } ?? "never"),
                ("records", String(i.serverRecordCount)), ("pending saves", String(i.pendingSaves)),
                ("pending deletes", String(i.pendingDeletes)), ("database token", i.databaseToken ?? "-"),
            ]
            for z in i.zoneTokens.keys.sorted() { rows.append(("zone \(z)", (i.zoneTokens[z] ?? nil) ?? "-")) }
            return rows
        }
    }

    /// `device list`: `{"devices": [Show]}`; jsonl a device a line; plain `device<TAB>records<TAB>pending<TAB>last sync`.
    struct List: CommandOutput {
        var devices: [Show]
        /// The acting user, whom people are told has no devices.
        var user: String
        var width: Int?

        var json: JSON { .object(["devices": .array(devices.map(\.json))]) }
        var jsonLines: [JSON] { devices.map(\.json) }
        var names: [String] { devices.map(\.info.name) }
        private func cells(_ i: DeviceInfo, never: String) -> [String] {
            [i.name, String(i.serverRecordCount), String(i.pendingSaves + i.pendingDeletes), i.lastSync.map { ISO8601.format(milliseconds: $0) } ?? never]
        }
        var plain: [String] { devices.map { cells($0.info, never: "-").joined(separator: "\t") } }
        var table: String {
            if devices.isEmpty { return "" }
            var t = Table(["DEVICE", "RECORDS", "PENDING", "LAST SYNC"])
            for d in devices { t.add(cells(d.info, never: "never")) }
            return t.aligned(width: width)
        }
        var notes: [String] { devices.isEmpty ? ["no devices for user \(user); 'ck sync <device>' creates one"] : [] }
    }

    /// `device delete`: `{"device", "deleted": true, "pendingLost"}`; names the device.
    struct Deleted: OutcomeOutput {
        var device: String
        /// Unsynced edits lost with the device.
        var pending: Int

        var json: JSON { .object(["device": .string(device), "deleted": .bool(true), "pendingLost": .int(Int64(pending))]) }
        var names: [String] { [device] }
        var line: String { device + "\tdeleted\t" + String(pending) }
        var sentence: String { "Deleted device \(device)" + (pending > 0 ? " (\(SyncCommand.plural(pending, "unsynced edit")) lost)" : "") }
    }
}

extension DeviceCommand {
    /// `device switch-account`: `{"device", "previousUser", "user", "userRecordName"}`; names the device.
    struct Switched: OutcomeOutput {
        var info: DeviceInfo
        /// The user the device was signed in as.
        var from: String

        var json: JSON {
            .object(["device": .string(info.name), "previousUser": .string(from), "user": .string(info.user),
                     "userRecordName": .string(info.userRecordName)])
        }
        var names: [String] { [info.name] }
        var line: String { info.name + "\tswitched\t" + from + "\t" + info.user }
        var sentence: String {
            "Device \(info.name) is signed in as \(info.user) (was \(from)); its next 'ck --as \(info.user) sync \(info.name)' clears \(from)'s data"
        }
    }
}
