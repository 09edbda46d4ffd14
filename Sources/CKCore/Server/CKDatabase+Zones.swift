/// A zone and what it holds.
public struct ZoneSummary: Sendable {
    public var zone: Zone
    public var recordCount: Int
}

extension CKDatabase {
    /// The zones of this database for this user: the default zone first, then custom zones by name.
    public func zones() throws(CKError) -> [Zone] {
        if scope == .shared { return [] }
        return try env.locked(exclusive: false) { () throws(CKError) -> [Zone] in
            let catalog = try env.readCatalog()
            let def = try resolveZone(Names.defaultZoneName, catalog: catalog)
            let custom = catalog.zones.filter { $0.database == scope && $0.zoneID.ownerRecordName == userRecordName }
            return [def] + custom.sorted { $0.zoneID.zoneName < $1.zoneID.zoneName }
        }
    }

    /// One zone with its record count.
    public func zoneSummary(_ name: String) throws(CKError) -> ZoneSummary {
        try env.locked(exclusive: false) { () throws(CKError) -> ZoneSummary in
            let zone = try resolveZone(name, catalog: try env.readCatalog())
            let reader = try env.openZone(env.logPath(database: scope, zone: zone.zoneID)).reader
            return ZoneSummary(zone: zone, recordCount: try reader.count())
        }
    }

    /// Creates a custom zone. Saving a zone that exists changes nothing and returns false, as CloudKit's zone save.
    @discardableResult
    public func createZone(_ name: String, capabilities: Set<ZoneCapability> = ZoneCapability.defaults) throws(CKError) -> (Zone, created: Bool) {
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
        let result = try env.locked(exclusive: true) { () throws(CKError) -> (Zone, created: Bool) in
            var catalog = try env.readCatalog()
            let id = zoneID(name)
            if let existing = catalog.zone(id, in: .private) { return (existing, false) }
            let seq = try env.highestSeq(catalog: catalog) + 1
            // A log left by a delete that was interrupted belongs to the deleted zone, not this new one.
            let path = env.logPath(database: .private, zone: id)
            if FileIO.exists(path) {
                try FileIO.removeTree(path)
                try env.index()?.sync(path, warnings: &env.warnings)
            }
            let zone = Zone(zoneID: id, database: .private, capabilities: capabilities, created: store.now(), seq: seq)
            catalog.zones.append(zone)
            catalog.lastSeq = seq
            try env.writeCatalog(catalog)
            return (zone, true)
        }
        registerAfterWrite()
        return result
    }

    /// Deletes a custom zone and all its records; returns how many records it held.
    @discardableResult
    public func deleteZone(_ name: String) throws(CKError) -> Int {
        if scope != .private {
            throw CKError(.badDatabase, "You can't delete zones in the \(scope.rawValue) database")
        }
        try Names.validateZoneName(name)
        if name == Names.defaultZoneName {
            throw CKError.invalid("the default zone can't be deleted", hint: "delete its records instead")
        }
        return try env.locked(exclusive: true) { () throws(CKError) -> Int in
            var catalog = try env.readCatalog()
            let zone = try resolveZone(name, catalog: catalog)
            let path = env.logPath(database: .private, zone: zone.zoneID)
            // A zone whose log is broken is not deleted: the user must see and repair it first.
            let count = try env.openZone(path).reader.count()
            // Database subscriptions with a record type fire only if the zone held such records.
            let file = try SubscriptionFile.read(env.subscriptionsPath)
            let typed = file.subscriptions.contains { s in
                if case .database(let t?) = s.kind { return s.ownerRecordName == zone.zoneID.ownerRecordName && s.database == .private && !t.isEmpty }
                return false
            }
            let types = typed ? Set(CKDatabase.fold(try env.readLog(path).entries).values.map(\.recordType)) : []
            let seq = try env.highestSeq(catalog: catalog) + 1
            catalog.zones.removeAll { $0.zoneID == zone.zoneID && $0.database == .private }
            catalog.deleted.append((zone, store.now(), seq))
            catalog.lastSeq = seq
            // The catalog and the log change together: a crash leaves the zone whole or deleted.
            try env.replaceCatalog(catalog, removing: path, operation: "zone delete \(name)")
            if !file.subscriptions.isEmpty { try notifyZoneDeleted(zone, recordTypes: types, file: file) }
            return count
        }
    }
}
