import CKModel
import CKStorage

/// One share as the environment holds it: the share record and the owner's zone it lives in.
public struct ShareEntry: Sendable {
    /// The owner's private zone.
    public var zone: Zone
    /// The `cloudkit.share` record.
    public var share: Record

    /// The share's participants, permissions and root.
    public var info: Share { share.shareInfo ?? Share(publicPermission: .none, participants: [], rootRecordName: nil) }
}

/// Finds shares: every `cloudkit.share` record of every private custom zone of the environment, computed from the
/// zone logs each time (no second copy to keep in step), read under the pipeline's lock.
package struct ShareDirectory {
    package let entries: [ShareEntry]

    package init(env: EnvironmentStore, catalog: ZoneCatalog) throws(CKError) {
        var out: [ShareEntry] = []
        let index = try env.index()
        for zone in catalog.zones where zone.database == .private && zone.capabilities.contains(.sharing) {
            let path = env.logPath(database: .private, zone: zone.zoneID)
            if let index {
                try index.sync(path, warnings: &env.warnings)
                guard try index.holds(path, recordType: Share.recordType) else { continue }
            }
            let live = CKDatabase.fold(try env.readLog(path).entries)
            for r in live.values where r.isShare { out.append(ShareEntry(zone: zone, share: r)) }
        }
        entries = out.sorted { ($0.zone.zoneID.ownerRecordName, $0.zone.zoneID.zoneName, $0.share.recordName)
            < ($1.zone.zoneID.ownerRecordName, $1.zone.zoneID.zoneName, $1.share.recordName) }
    }

    /// The share with a short GUID (the root's GUID is the share's).
    package func share(shortGUID: String) -> ShareEntry? { entries.first { $0.share.shortGUID == shortGUID } }

    /// Shares a user has accepted (with a permission other than none): what its shared database shows.
    package func accepted(by userRecordName: String) -> [ShareEntry] {
        entries.filter { $0.info.access(for: userRecordName) != nil && $0.zone.zoneID.ownerRecordName != userRecordName }
    }

    /// The zones of a user's shared database, sorted by name then owner.
    package func sharedZones(of userRecordName: String) -> [Zone] {
        var seen = Set<ZoneID>()
        var out: [Zone] = []
        for e in accepted(by: userRecordName) where seen.insert(e.zone.zoneID).inserted {
            var z = e.zone
            z.database = .shared
            out.append(z)
        }
        return out.sorted { ($0.zoneID.zoneName, $0.zoneID.ownerRecordName) < ($1.zoneID.zoneName, $1.zoneID.ownerRecordName) }
    }
}

extension CKDatabase {
    /// A zone of the caller's shared database: the owner's zone of a share the caller accepted. A name two owners
    /// share is ambiguous: `NAME:OWNER` (owner by user name or user record name) picks one.
    package func resolveSharedZone(_ text: String, directory: ShareDirectory) throws(CKError) -> Zone {
        var name = text
        var owner: String? = nil
        if let colon = text.firstIndex(of: ":") {
            name = String(text[..<colon])
            owner = String(text[text.index(after: colon)...])
        }
        try Names.validateZoneName(name)
        let zones = directory.sharedZones(of: userRecordName)
        var matching = zones.filter { $0.zoneID.zoneName == name }
        if let owner {
            let urn = Names.isUserRecordName(owner) ? owner : Caller.userRecordName(for: owner)
            matching = matching.filter { $0.zoneID.ownerRecordName == urn }
        }
        if matching.count > 1 {
            throw CKError.invalid("zone '\(name)' is shared with \(caller.description) by \(matching.count) owners",
                                  hint: "name it with its owner: -z \(name):<owner user name>")
        }
        guard let zone = matching.first else {
            if name == Names.defaultZoneName {
                let names = zones.map(\.zoneID.zoneName)
                throw CKError(.zoneNotFound, "The shared database has no default zone: every shared zone is named",
                              hint: names.isEmpty ? "accept a share first ('ck share accept <url>')" : "name one with -z: " + names.joined(separator: ", "))
            }
            let close = Names.closest(to: name, among: zones.map(\.zoneID.zoneName))
            let hint = zones.isEmpty
                ? "the shared database holds only zones of shares you accepted: 'ck share accept <url>' (your own zones are in --db private)"
                : (close.map { "did you mean '\($0)'? " } ?? "") + "zones shared with you: " + zones.map(\.zoneID.zoneName).joined(separator: ", ")
            throw CKError(.zoneNotFound, "Zone '\(text)' does not exist in the shared database", hint: hint)
        }
        return zone
    }

    /// The permission stage's view of one shared zone for the caller.
    package func shareView(_ zone: Zone, directory: ShareDirectory) throws(CKError) -> ShareView {
        let shares = directory.accepted(by: userRecordName).filter { $0.zone.zoneID == zone.zoneID }
        let reader = try env.openZone(env.logPath(database: .private, zone: zone.zoneID)).reader
        return ShareView(shares: shares, userRecordName: userRecordName) { (name) throws(CKError) -> Record? in try reader.record(name) }
    }
}
