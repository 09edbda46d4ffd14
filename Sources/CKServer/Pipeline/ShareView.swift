import CKModel
import CKStorage

/// The permission stage's view of one zone of a participant's shared database: which of the owner's records the
/// participant's accepted shares reach, and with which permission. Computed from the owner's zone (never copied):
/// a record belongs to a hierarchy share when walking its `parent` chain reaches the share's root; every record of
/// a zone with an accepted zone-wide share belongs to it. A class, so a modify request's new records join the view
/// as they are created.
package final class ShareView {
    /// The participant's accepted shares in this zone.
    package let shares: [ShareEntry]
    private let userRecordName: String
    private let zoneWide: Share.Permission?
    /// Root record name → the participant's permission through that root's share.
    private let roots: [String: Share.Permission]
    /// Share record name → the participant's permission (a participant reads its shares).
    private let shareRecords: [String: Share.Permission]
    /// What the walks found (nil: outside every share).
    private var memo: [String: Share.Permission?] = [:]
    /// Reads a record of the zone as the operation sees it.
    package var lookup: (String) throws(CKError) -> Record?

    package init(shares: [ShareEntry], userRecordName: String, lookup: @escaping (String) throws(CKError) -> Record?) {
        self.shares = shares
        self.userRecordName = userRecordName
        self.lookup = lookup
        var zoneWide: Share.Permission? = nil
        var roots: [String: Share.Permission] = [:]
        var records: [String: Share.Permission] = [:]
        for e in shares {
            guard let p = e.info.access(for: userRecordName) else { continue }
            records[e.share.recordName] = p
            if let root = e.info.rootRecordName { roots[root] = p } else { zoneWide = p }
        }
        self.zoneWide = zoneWide
        self.roots = roots
        self.shareRecords = records
    }

    /// Whether the participant's shares include a zone-wide one.
    package var isZoneWide: Bool { zoneWide != nil }

    /// Whether `name` is the root of one of the participant's hierarchy shares.
    package func isRoot(_ name: String) -> Bool { roots[name] != nil }

    /// The participant's permission on a record; nil when no accepted share reaches it.
    package func access(_ record: Record) -> Share.Permission? {
        if let p = shareRecords[record.recordName], record.isShare { return p }
        if record.isShare { return nil }
        if let zoneWide { return zoneWide }
        return access(name: record.recordName, parent: record.parent)
    }

    /// The permission a record named `name` with parent `parent` has, walking up the parent chain.
    package func access(name: String, parent: String?) -> Share.Permission? {
        if let zoneWide { return zoneWide }
        if let p = roots[name] { return p }
        if let known = memo[name] { return known }
        var seen: Set<String> = [name]
        var chain = [name]
        var next = parent
        var found: Share.Permission? = nil
        while let p = next, seen.insert(p).inserted {
            if let r = roots[p] { found = r; break }
            if let known = memo[p] { found = known; break }
            chain.append(p)
            // A parent that can't be read ends the walk outside every share.
            next = ((try? lookup(p)) ?? nil)?.parent
        }
        for n in chain { memo[n] = .some(found) }
        return found
    }

    /// Forgets what walks found (a request re-parented or created records).
    package func forget() { memo = [:] }
}
