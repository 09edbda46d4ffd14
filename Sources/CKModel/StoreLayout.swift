/// Every path ck makes in a store, with what it holds: doctor, the man page, container deletion and the tests
/// read this table, so a file ck writes and the table does not list is a failing test, not a stale page.
///
/// Patterns are relative to the store root. `<name>` stands for one path component (`<environment>` only for
/// `development` or `production`); a component may carry text around it (`<zone>.jsonl`); `…` at the end
/// stands for anything below.
package enum StoreLayout {
    /// Who makes a path.
    package enum Owner: Sendable { case server, sync, doctor }

    /// Why a path is there.
    package enum Kind: Sendable {
        /// Data or configuration: what the store is.
        case data
        /// An empty file that processes take flocks on.
        case lock
        /// Derived from the data; safe to delete.
        case cache
        /// Left only by an operation in progress or one a crash interrupted; finished or removed by the next writer.
        case transient
    }

    /// One path pattern of the store.
    package struct Entry: Sendable {
        package let pattern: String
        package let holds: String
        package let owner: Owner
        package let kind: Kind
        /// Listed in the man page's FILES section (`holds` is its text there).
        package let manual: Bool

        /// The pattern as a page shows it (a tree ends in `/`).
        package var shownPath: String { pattern.hasSuffix("…") ? String(pattern.dropLast()) : pattern }

        /// The top of this entry's per-container tree (`containers/<id>`, `devices/<id>`), if it has one.
        package var containerTree: String? {
            let parts = pattern.split(separator: "/")
            guard parts.count >= 2, parts[1] == "<id>", !parts[0].contains("<") else { return nil }
            return String(parts[0])
        }
    }

    private static let env = "containers/<id>/<environment>"
    private static let device = devicesName + "/<id>/<environment>/<userRecordName>"

    package static let entries: [Entry] = [
        Entry(pattern: "ck.json", holds: "Format version and the current container.", owner: .server, kind: .data, manual: true),
        Entry(pattern: clockName, holds: "The store\u{2019}s clock: an offset from the real time or a fixed instant (\u{201C}ck clock\u{201D}).", owner: .server, kind: .data, manual: true),
        Entry(pattern: "containers/<id>/container.json", holds: "Container identifier, creation time and users.", owner: .server, kind: .data, manual: true),
        Entry(pattern: "containers/<id>/" + serveAuthName, holds: "Web auth tokens and server\u{2011}to\u{2011}server keys of \u{201C}ck serve\u{201D}.", owner: .server, kind: .data, manual: true),
        Entry(pattern: env + "/", holds: "One tree per environment: development and production.", owner: .server, kind: .data, manual: true),
        Entry(pattern: env + "/schema.json", holds: "Record types and their indexes.", owner: .server, kind: .data, manual: true),
        Entry(pattern: env + "/zones.json", holds: "Custom zones, deleted zones and each zone's compaction point.", owner: .server, kind: .data, manual: true),
        Entry(pattern: env + "/subscriptions.json", holds: "Subscriptions of every user of the environment.", owner: .server, kind: .data, manual: true),
        Entry(pattern: env + "/notifications/<userRecordName>.jsonl", holds: "One user's notifications, append\u{2011}only.", owner: .server, kind: .data, manual: true),
        Entry(pattern: env + "/public/_defaultZone.jsonl", holds: "The public database log.", owner: .server, kind: .data, manual: true),
        Entry(pattern: env + "/private/<userRecordName>/<zone>.jsonl", holds: "Private database logs, one per user and zone.", owner: .server, kind: .data, manual: true),
        Entry(pattern: env + "/assets/<sha256>", holds: "Asset bytes, named by their SHA\u{2011}256.", owner: .server, kind: .data, manual: true),
        Entry(pattern: env + "/faults.json", holds: "Injected fault rules and their counters (\u{201C}ck fault\u{201D}).", owner: .server, kind: .data, manual: true),
        Entry(pattern: env + "/kv/<userRecordName>.json", holds: "A user's iCloud key\u{2011}value store (\u{201C}ck kv\u{201D}).", owner: .server, kind: .data, manual: true),
        Entry(pattern: env + "/.index.sqlite", holds: "A derived index, rebuilt from the logs when stale (not made when CK_INDEX=off).", owner: .server, kind: .cache, manual: true),
        Entry(pattern: device + "/<device>.sqlite", holds: "An emulated device's replica, made by \u{201C}ck sync\u{201D}: client state, not server data.", owner: .sync, kind: .data, manual: true),
        Entry(pattern: "lost+found/<time>/…", holds: "Data moved aside by \u{201C}ck doctor --repair\u{201D}; never deleted.", owner: .doctor, kind: .data, manual: true),
        // Not in the man page: locks, caches' companions and what interrupted operations leave.
        Entry(pattern: ".lock", holds: "flock target for ck.json and every container.json.", owner: .server, kind: .lock, manual: false),
        Entry(pattern: "serve.json", holds: "Where a running \u{201C}ck serve\u{201D} listens (url, pid), for \u{201C}ck serve log\u{201D}; removed when it stops.", owner: .server, kind: .cache, manual: false),
        Entry(pattern: ".intent.json", holds: "An operation on several root files in progress (container delete, import into a new container).", owner: .server, kind: .transient, manual: false),
        Entry(pattern: ".pending-<id>/…", holds: "The staged new and old versions of the root's operation in progress.", owner: .server, kind: .transient, manual: false),
        Entry(pattern: "containers/<id>/.lock", holds: "flock target kept by older stores; ck accepts it and takes no lock on it.", owner: .server, kind: .lock, manual: false),
        Entry(pattern: env + "/.lock", holds: "flock target for everything in the environment (shared by readers, exclusive by writers).", owner: .server, kind: .lock, manual: false),
        Entry(pattern: env + "/.faults.lock", holds: "flock target for faults.json's read-modify-write, always taken last.", owner: .server, kind: .lock, manual: false),
        Entry(pattern: env + "/.index.sqlite-wal", holds: "SQLite's write-ahead log of the index.", owner: .server, kind: .cache, manual: false),
        Entry(pattern: env + "/.index.sqlite-shm", holds: "SQLite's shared memory of the index.", owner: .server, kind: .cache, manual: false),
        Entry(pattern: env + "/.index.sqlite-journal", holds: "SQLite's rollback journal of the index.", owner: .server, kind: .cache, manual: false),
        Entry(pattern: env + "/.notifications-pending.json", holds: "Notifications of a change not yet delivered to the notification logs.", owner: .server, kind: .transient, manual: false),
        Entry(pattern: env + "/.register-pending.json", holds: "Users an import or model schema import committed, not yet listed in container.json.", owner: .server, kind: .transient, manual: false),
        Entry(pattern: env + "/.intent.json", holds: "An operation on several environment files in progress (zone delete, import, reset, gc).", owner: .server, kind: .transient, manual: false),
        Entry(pattern: env + "/.pending-<id>/…", holds: "The staged new and old versions of the environment's operation in progress.", owner: .server, kind: .transient, manual: false),
        Entry(pattern: device + "/<device>.sqlite-wal", holds: "SQLite's write-ahead log of a replica.", owner: .sync, kind: .cache, manual: false),
        Entry(pattern: device + "/<device>.sqlite-shm", holds: "SQLite's shared memory of a replica.", owner: .sync, kind: .cache, manual: false),
        Entry(pattern: device + "/<device>.sqlite-journal", holds: "SQLite's rollback journal of a replica.", owner: .sync, kind: .transient, manual: false),
        Entry(pattern: device + "/<device>.sqlite.lock", holds: "flock target held while the device syncs or is edited.", owner: .sync, kind: .lock, manual: false),
    ]

    /// Names that may appear in any directory ck fills, left by an interrupted write or removal.
    package static let anywhere: [Entry] = [
        Entry(pattern: ".<name>.tmp-<id>", holds: "A file being written: renamed over its target once synced.", owner: .server, kind: .transient, manual: false),
        Entry(pattern: ".deleting-<id>", holds: "A tree being removed: renamed aside first so no half-removed tree keeps its name.", owner: .server, kind: .transient, manual: false),
    ]

    // MARK: Paths

    /// The format of the store this ck writes (in ck.json).
    package static let formatVersion: Int64 = 1
    package static let configName = "ck.json"
    /// The store's clock (`ck clock`); absent: the real time.
    package static let clockName = "clock.json"
    package static let lockName = ".lock"
    package static let containersName = "containers"
    package static let containerInfoName = "container.json"
    /// A container's web auth tokens and server-to-server keys (`ck serve token`, `ck serve key`).
    package static let serveAuthName = "auth.json"
    /// The root directory of the devices' replicas (sync's, not the server's).
    package static let devicesName = "devices"
    /// What an environment's directory holds from the moment its container is created.
    package static let environmentTrees = ["public", "private", "assets"]

    // MARK: Matching

    /// The entry a path (relative to the store root) is, or lies below or above; nil when ck makes no such path.
    package static func entry(for relative: String, including kinds: Set<Kind> = [.data, .lock, .cache, .transient]) -> Entry? {
        let parts = relative.split(separator: "/").map(String.init)
        if let last = parts.last, let e = anywhere.first(where: { matches(last, $0.pattern) }), kinds.contains(e.kind) { return e }
        return entries.first { kinds.contains($0.kind) && covers($0.pattern, parts) }
    }

    /// Whether `parts` is the pattern's path, a directory above it, or (for `…`) anything below it.
    private static func covers(_ pattern: String, _ parts: [String]) -> Bool {
        let want = pattern.split(separator: "/").map(String.init)
        for (i, part) in parts.enumerated() {
            guard i < want.count else { return false }
            if want[i] == "…" { return true }
            if !matches(part, want[i]) { return false }
        }
        return true
    }

    /// Whether one path component matches one pattern component: its literal text in order, each `<name>`
    /// standing for one or more characters (`<environment>` only for an environment's name).
    private static func matches(_ name: String, _ pattern: String) -> Bool {
        var literals: [Substring] = []
        var placeholders: [Substring] = []
        var rest = Substring(pattern)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            literals.append(rest[..<open])
            placeholders.append(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        literals.append(rest)
        if placeholders.isEmpty { return name == pattern }
        if placeholders == ["<environment>"], literals.allSatisfy(\.isEmpty) { return Environment(rawValue: name) != nil }
        guard name.hasPrefix(literals[0]), name.hasSuffix(literals[literals.count - 1]) else { return false }
        var text = name.dropFirst(literals[0].count).dropLast(literals[literals.count - 1].count)
        // Each placeholder takes at least one character before the next literal.
        for literal in literals.dropFirst().dropLast() {
            guard !text.isEmpty, let r = text.dropFirst().range(of: literal) else { return false }
            text = text[r.upperBound...]
        }
        return !text.isEmpty && name.count > literals.reduce(0) { $0 + $1.count }
    }

    /// The top directories of a container's trees, one per owner (`containers/<id>`, `devices/<id>`): deleting a
    /// container removes all of them.
    package static func containerTrees(_ id: String) -> [String] {
        var seen: [String] = []
        for e in entries { if let top = e.containerTree, !seen.contains(top) { seen.append(top) } }
        return seen.map { $0 + "/" + id }
    }

    /// The entries of the store root a failed first command may remove when it made the store (ck.json first).
    package static var rootNames: [String] {
        var seen: [String] = []
        // Caches (serve.json of a running server) are not what a first command made.
        for e in entries where e.kind != .transient && e.kind != .cache && e.owner != .doctor {
            let top = String(e.pattern.split(separator: "/")[0])
            if !seen.contains(top) { seen.append(top) }
        }
        return seen
    }
}
