import CKModel

/// A zone and what it holds.
public struct ZoneSummary: Sendable {
    public var zone: Zone
    public var recordCount: Int
}

extension CKDatabase {
    /// The zones of this database for this user: the default zone first, then custom zones by name.
    public func zones() throws(CKError) -> [Zone] {
        try perform(.zoneList) { (state) throws(CKError) -> [Zone] in
            if scope == .shared { return state.shares?.sharedZones(of: userRecordName) ?? [] }
            let def = try resolveZone(Names.defaultZoneName, catalog: state.catalog)
            let custom = state.catalog.zones.filter { $0.database == scope && $0.zoneID.ownerRecordName == userRecordName }
            return [def] + custom.sorted { $0.zoneID.zoneName < $1.zoneID.zoneName }
        }
    }

    /// One zone with the count of its records the caller may read (in the public database, the grants decide;
    /// a private zone is its owner's alone).
    public func zoneSummary(_ name: String) throws(CKError) -> ZoneSummary {
        try perform(.zoneSummary, zone: name) { (state) throws(CKError) -> ZoneSummary in
            guard let zone = state.zone else { throw CKError(.zoneNotFound, "Zone '\(name)' does not exist") }
            let path = env.logPath(database: scope, zone: zone.zoneID)
            // Where the gate lets the caller read every record, the index counts them without reading each.
            if state.gate.readsEveryRecord { return ZoneSummary(zone: zone, recordCount: try env.openZone(path).reader.count()) }
            let schema = try env.readSchema()
            let live = CKDatabase.fold(try env.readLog(path).entries)
            let readable = live.values.count { state.gate.mayRead($0, schema: schema) }
            return ZoneSummary(zone: zone, recordCount: readable)
        }
    }

    /// Creates a custom zone. Saving a zone that exists changes nothing and returns false, as CloudKit's zone save.
    @discardableResult
    public func createZone(_ name: String, capabilities: Set<ZoneCapability> = ZoneCapability.defaults) throws(CKError) -> (Zone, created: Bool) {
        try perform(.zoneCreate, validate: { () throws(CKError) in
            switch scope {
            case .public:
                throw CKError(.badDatabase, "You can't create custom zones in a public database",
                              hint: "custom zones exist only in the private database (--db private)")
            case .shared:
                throw CKError(.badDatabase, "You can't create zones in the shared database",
                              hint: "zones appear there when another user shares one with you")
            case .private: break
            }
            try Names.validateZoneName(name)
            if name == Names.defaultZoneName {
                throw CKError.invalid("'\(name)' is the default zone; it always exists and can't be created")
            }
            if capabilities.contains(.zoneWideSharing) && !capabilities.contains(.sharing) {
                throw CKError.invalid("zoneWideSharing needs the sharing capability")
            }
        }) { (state) throws(CKError) -> (Zone, created: Bool) in
            var catalog = state.catalog
            let id = zoneID(name)
            if let existing = catalog.zone(id, in: .private) { return (existing, false) }
            let seq = try env.highestSeq(catalog: catalog) + 1
            // A log left by a delete that was interrupted belongs to the deleted zone, not this new one.
            let path = env.logPath(database: .private, zone: id)
            state.changes.append(.removeStrayLog(path))
            let zone = Zone(zoneID: id, database: .private, capabilities: capabilities, created: store.now(), seq: seq)
            catalog.zones.append(zone)
            catalog.lastSeq = seq
            state.changes.append(.catalog(catalog))
            return (zone, true)
        }
    }

    /// Deletes a custom zone as the user does from iCloud settings: like a delete, but devices meet
    /// userDeletedZone and the database change feed reports the zone as purged. Returns how many records it held.
    @discardableResult
    public func purgeZone(_ name: String) throws(CKError) -> Int {
        try deleteZone(name, kind: .zonePurge)
    }

    /// Deletes a custom zone as a reset of the user's encrypted data does (account recovery without the keys): like a
    /// delete, but the database change feed says encryptedDataReset, so devices upload what they hold again.
    @discardableResult
    public func resetEncryptedZone(_ name: String) throws(CKError) -> Int {
        try deleteZone(name, kind: .zoneDelete, encryptedDataReset: true)
    }

    /// Deletes a custom zone and all its records; returns how many records it held.
    @discardableResult
    public func deleteZone(_ name: String) throws(CKError) -> Int {
        try deleteZone(name, kind: .zoneDelete)
    }

    package func deleteZone(_ name: String, kind: OperationKind, encryptedDataReset: Bool = false) throws(CKError) -> Int {
        try perform(kind, zone: name, validate: { () throws(CKError) in
            if scope != .private {
                throw CKError(.badDatabase, "You can't delete zones in the \(scope.rawValue) database")
            }
            try Names.validateZoneName(name)
            if name == Names.defaultZoneName {
                throw CKError.invalid("the default zone can't be deleted", hint: "delete its records instead")
            }
        }) { (state) throws(CKError) -> Int in
            guard let zone = state.zone else { throw CKError(.zoneNotFound, "Zone '\(name)' does not exist") }
            // A zone whose log is broken is not deleted: the user must see and repair it first.
            let count = try env.openZone(env.logPath(database: .private, zone: zone.zoneID)).reader.count()
            var catalog = state.catalog
            if let drop = try dropZones([zone], catalog: &catalog, notify: true, purged: kind == .zonePurge,
                                        encryptedDataReset: encryptedDataReset) { state.changes.append(drop) }
            return count
        }
    }
}
