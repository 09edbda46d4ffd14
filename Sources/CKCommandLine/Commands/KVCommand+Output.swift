import CKCore

/// What `ck kv` prints.
extension KVCommand {
    /// A key or value for people: control characters shown (`Names.visible`); it is anyone's text.
    static func visible(_ text: String) -> String { Names.visible(text) }

    /// A key, value or reason in a tab-separated line: tabs, newlines and backslashes escaped as in every plain line,
    /// then any other control character as `visible` shows it.
    static func plainCell(_ text: String) -> String { visible(RecordText.escape(text)) }

    /// A key's entry: the value's `{"type", "value"}` plus `"key"`, `"size"`, `"modified"`, `"deviceID"`, and on a
    /// device `"pending"`.
    struct Entry {
        var key: String
        var value: KVValue
        var modified: Int64
        var deviceID: String
        /// Whether a device's write waits for a sync; nil on the server.
        var pending: Bool?

        var json: JSON {
            var o = value.json.objectValue ?? [:]
            o["key"] = .string(key)
            o["size"] = .int(Int64(value.size))
            o["modified"] = .int(modified)
            o["deviceID"] = .string(deviceID)
            if let pending { o["pending"] = .bool(pending) }
            return .object(o)
        }
    }

    /// `kv set`: the entry written, on the server or on `device`.
    struct Set: OutcomeOutput {
        var entry: Entry
        var device: String?

        var json: JSON { entry.json }
        var line: String { ([KVCommand.plainCell(entry.key), entry.value.typeName, String(entry.value.size)] + (device == nil ? [] : ["pending"])).joined(separator: "\t") }
        var sentence: String {
            "Set \(KVCommand.visible(entry.key)) (\(entry.value.typeName), \(entry.value.size) bytes)" + (device.map { " on \($0) (pending until 'ck kv sync \($0)')" } ?? "")
        }
    }

    /// `kv remove`: `{"key", "removed": true}`, plus `"device"` and `"pending": true` on a device.
    struct Removed: OutcomeOutput {
        var key: String
        var device: String?

        var json: JSON {
            var o: [String: JSON] = ["key": .string(key), "removed": .bool(true)]
            if let device { o["device"] = .string(device); o["pending"] = .bool(true) }
            return .object(o)
        }
        var line: String { KVCommand.plainCell(key) + "\tremoved" + (device == nil ? "" : "\tpending") }
        var sentence: String { "Removed \(KVCommand.visible(key))" + (device.map { " on \($0) (pending until 'ck kv sync \($0)')" } ?? "") }
    }

    /// `kv get`: the entry; people and scripts get the value as text (escaped for scripts).
    struct Got: OutcomeOutput {
        var entry: Entry

        var json: JSON { entry.json }
        var line: String { KVCommand.plainCell(entry.value.text) }
        // Newlines stay: a value of several lines reads as such.
        var sentence: String { entry.value.text.split(separator: "\n", omittingEmptySubsequences: false).map { KVCommand.visible(String($0)) }.joined(separator: "\n") }
    }

    /// `kv list`: `{"keys": [Entry]}`; jsonl: one entry a line.
    struct List: CommandOutput {
        var entries: [Entry]
        var onDevice: Bool

        var json: JSON { .object(["keys": .array(entries.map(\.json))]) }
        var jsonLines: [JSON] { entries.map(\.json) }
        private var rows: Table {
            var t = Table(onDevice ? ["KEY", "TYPE", "SIZE", "PENDING"] : ["KEY", "TYPE", "SIZE"])
            for e in entries { t.add([KVCommand.visible(e.key), e.value.typeName, String(e.value.size)] + (onDevice ? [e.pending == true ? "yes" : "-"] : [])) }
            return t
        }
        var plain: [String] {
            entries.map { e in ([KVCommand.plainCell(e.key), e.value.typeName, String(e.value.size)] + (onDevice ? [e.pending == true ? "yes" : "-"] : [])).joined(separator: "\t") }
        }
        var table: String { entries.isEmpty ? "No keys" + (onDevice ? " on this device." : ".") + "\n" : rows.aligned() }
    }

    /// Whose store `kv show` describes.
    enum Place {
        case server(KVUsage, path: String)
        case device(String, KVDeviceInfo)
    }

    /// `kv show`: `{"keys", "maxKeys", "bytes", "maxBytes", "largestKey", "largestBytes", "maxValueBytes", "maxKeyBytes"}`
    /// plus `"user"` and `"path"` on the server, or `"device"`, `"pending"`, `"events"`, `"lastSync"` and
    /// `"accountStatus"` on a device.
    struct Usage: RowsOutput {
        var usage: Place
        var user: String

        private var counts: KVUsage {
            switch usage {
            case .server(let u, _): return u
            case .device(_, let i): return i.usage
            }
        }

        var json: JSON {
            let u = counts
            var o: [String: JSON] = [
                "keys": .int(Int64(u.keys)), "maxKeys": .int(Int64(KVLimits.maxKeys)),
                "bytes": .int(Int64(u.totalBytes)), "maxBytes": .int(Int64(KVLimits.maxTotalBytes)),
                "largestKey": u.largestKey.map { .string($0) } ?? .null, "largestBytes": .int(Int64(u.largestBytes)),
                "maxValueBytes": .int(Int64(KVLimits.maxValueBytes)), "maxKeyBytes": .int(Int64(KVLimits.maxKeyBytes)),
            ]
            switch usage {
            case .server(_, let path):
                o["user"] = .string(user)
                o["path"] = .string(path)
            case .device(let name, let i):
                o["device"] = .string(name)
                o["pending"] = .int(Int64(i.pending))
                o["events"] = .int(Int64(i.events))
                o["lastSync"] = i.lastSync.map { .int($0) } ?? .null
                o["accountStatus"] = .string(i.accountStatus)
            }
            return .object(o)
        }

        var rows: [(String, String)] {
            let u = counts
            let limits = [("keys", "\(u.keys) of \(KVLimits.maxKeys)"),
                          ("bytes", "\(u.totalBytes) of \(KVLimits.maxTotalBytes) (keys and values)"),
                          ("largest value", u.largestKey.map { "\(KVCommand.visible($0)): \(u.largestBytes) of \(KVLimits.maxValueBytes) bytes" } ?? "-")]
            switch usage {
            case .server(_, let path):
                return [("user", user)] + limits + [("file", path)]
            case .device(let name, let i):
                return [("device", name), ("user", user)] + limits + [
                    ("pending", String(i.pending)), ("events", String(i.events)),
                    ("last sync", i.lastSync.map { ISO8601.format(milliseconds: $0) } ?? "never"),
                    ("account", i.accountStatus)]
            }
        }
    }
}

/// What `ck kv sync` and `ck kv events` print.
extension KVSyncCommand {
    /// `kv sync`: the report's JSON, in json and jsonl alike.
    struct Synced: CommandOutput {
        var report: KVSyncReport

        var json: JSON { report.json }
        var plain: [String] { plainLines(report) }
        var table: String { Self.text([summary(report)] + detailLines(report)) }
    }

    /// `kv events`: `{"device", "events": [event]}`; jsonl: one event a line.
    struct Events: CommandOutput {
        var device: String
        var events: [KVEvent]

        var json: JSON { .object(["device": .string(device), "events": .array(events.map(\.json))]) }
        var jsonLines: [JSON] { events.map(\.json) }
        private var rows: Table {
            var t = Table(["ID", "TIME", "REASON", "KEYS"])
            for e in events { t.add([String(e.id), ISO8601.format(milliseconds: e.at), e.reason.rawValue, KVCommand.visible(e.keys.joined(separator: ","))]) }
            return t
        }
        var plain: [String] {
            events.map { e in [String(e.id), ISO8601.format(milliseconds: e.at), e.reason.rawValue, KVCommand.plainCell(e.keys.joined(separator: ","))].joined(separator: "\t") }
        }
        var table: String { events.isEmpty ? "No key-value events on \(device).\n" : rows.aligned() }
    }
}
