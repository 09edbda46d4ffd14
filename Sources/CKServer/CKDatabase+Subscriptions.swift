import Foundation
import CKModel
import CKQuery
import CKSchema
import CKStorage

extension Subscription {
    /// Subscription IDs become CLI arguments and JSON keys: 1 to 255 letters, digits and `-_.:@`.
    public static func validateID(_ id: String) throws(CKError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:@")
        guard !id.isEmpty, id.count <= 255, id.allSatisfy(allowed.contains) else {
            throw CKError.invalid("subscription ID '\(id)' is not valid: use 1 to 255 letters, digits, '-', '_', '.', ':' or '@'")
        }
    }
}

extension CKDatabase {
    /// Saves a subscription for this user and database; an existing ID is replaced (CKModifySubscriptionsOperation).
    @discardableResult
    public func saveSubscription(_ subscription: Subscription) throws(CKError) -> Subscription {
        try saveSubscriptionReplacing(subscription).saved
    }

    /// Saves a subscription as CloudKit does, replacing one with the same ID; says whether one was replaced.
    public func saveSubscriptionReplacing(_ subscription: Subscription) throws(CKError) -> (saved: Subscription, replaced: Bool) {
        var sub = subscription
        if sub.subscriptionID.isEmpty { sub.subscriptionID = UUID().uuidString }
        try Subscription.validateID(sub.subscriptionID)
        sub.ownerRecordName = userRecordName
        sub.database = scope
        sub.created = store.now()
        let replaced = try perform(.subscriptionSave) { (state) throws(CKError) -> Bool in
            let catalog = state.catalog
            let schema = try env.readSchema()
            try check(sub, schema: schema) { (name) throws(CKError) -> Zone in try resolveZone(name, catalog: catalog) }
            // A subscription never reveals records of a type its owner may not read.
            if case .query(let type, _, _, _, _, _) = sub.kind { try state.gate.read(type: type, schema: schema) }
            var file = try SubscriptionFile.read(env.subscriptionsPath)
            let key = SubscriptionFile.key(sub)
            let before = file.subscriptions.count
            file.subscriptions.removeAll { SubscriptionFile.key($0) == key }
            file.subscriptions.append(sub)
            state.changes.append(.subscriptions(file))
            return file.subscriptions.count == before
        }
        return (sub, replaced)
    }

    /// This user's subscriptions in this database, by ID.
    public func subscriptions() throws(CKError) -> [Subscription] {
        try perform(.subscriptionList) { (_) throws(CKError) -> [Subscription] in
            try SubscriptionFile.read(env.subscriptionsPath).subscriptions
                .filter { $0.ownerRecordName == userRecordName && $0.database == scope }
                .sorted { $0.subscriptionID < $1.subscriptionID }
        }
    }

    /// One of this user's subscriptions in this database, or unknownItem.
    public func subscription(_ id: String) throws(CKError) -> Subscription {
        guard let s = try subscriptions().first(where: { $0.subscriptionID == id }) else { throw notFound(id) }
        return s
    }

    /// Deletes one of this user's subscriptions in this database; unknownItem when there is none.
    public func deleteSubscription(_ id: String) throws(CKError) {
        try perform(.subscriptionDelete) { (state) throws(CKError) in
            var file = try SubscriptionFile.read(env.subscriptionsPath)
            let before = file.subscriptions.count
            file.subscriptions.removeAll { $0.ownerRecordName == userRecordName && $0.database == scope && $0.subscriptionID == id }
            guard file.subscriptions.count < before else { throw notFound(id) }
            state.changes.append(.subscriptions(file))
        }
    }

    /// Deletes several of this user's subscriptions as one operation, one write: all that exist go together (a
    /// crash leaves all or none). Returns, for each ID in order, nil when it was deleted or its unknownItem error.
    public func deleteSubscriptions(_ ids: [String]) throws(CKError) -> [CKError?] {
        try perform(.subscriptionDelete) { (state) throws(CKError) -> [CKError?] in
            var file = try SubscriptionFile.read(env.subscriptionsPath)
            var outcome: [CKError?] = []
            for id in ids {
                let before = file.subscriptions.count
                file.subscriptions.removeAll { $0.ownerRecordName == userRecordName && $0.database == scope && $0.subscriptionID == id }
                outcome.append(file.subscriptions.count < before ? nil : notFound(id))
            }
            if outcome.contains(where: { $0 == nil }) { state.changes.append(.subscriptions(file)) }
            return outcome
        }
    }

    package func notFound(_ id: String) -> CKError {
        CKError(.unknownItem, "Subscription not found: '\(id)' in the \(scope.rawValue) database",
                hint: "'ck subscription list' shows this user's subscriptions (subscriptions belong to the user and database that saved them)")
    }

    /// CloudKit's rules for a subscription in this database; `zone` finds a zone by name (zoneNotFound otherwise).
    package func check(_ sub: Subscription, schema: Schema, zone: (String) throws(CKError) -> Zone) throws(CKError) {
        switch sub.kind {
        case .query(let type, let predicate, let arguments, let firesOn, _, let zoneName):
            if scope == .shared {
                throw CKError(.badDatabase, "Query subscriptions are not supported in the shared database",
                              hint: "use a database subscription (ck subscription create database) in the shared database")
            }
            if firesOn.isEmpty {
                throw CKError.invalid("a query subscription must fire on at least one of create, update and delete",
                                      hint: "pass --fires-on create,update,delete")
            }
            if let zoneName { _ = try zone(zoneName) }
            // The same compiler as queries: unknown types/fields and missing QUERYABLE indexes are refused the same way.
            _ = try makePlan(QueryRequest(recordType: type, predicate: predicate, arguments: arguments), schema: schema)
        case .recordZone(let zoneName, let type):
            if scope != .private {
                throw CKError(.badDatabase, "Zone subscriptions are supported only in the private database",
                              hint: scope == .shared ? "use a database subscription in the shared database" : "use a query subscription in the public database")
            }
            let z = try zone(zoneName)
            guard z.capabilities.contains(.fetchChanges) else {
                throw CKError.invalid("zone '\(zoneName)' does not have the fetchChanges capability, which a zone subscription needs",
                                      hint: z.zoneID.isDefault ? "the default zone has no capabilities; subscribe to a custom zone (ck zone create)"
                                                               : "create the zone with --capabilities fetchChanges")
            }
            if let type { try Names.validateRecordType(type) }
        case .database(let type):
            if scope == .public {
                throw CKError(.badDatabase, "Database subscriptions are supported only in the private and shared databases",
                              hint: "use a query subscription in the public database")
            }
            if let type { try Names.validateRecordType(type) }
        }
        try checkDesiredKeys(sub, schema: schema)
    }

    /// desiredKeys may name only reference, location, date, number and string fields (CKSubscription.h).
    package func checkDesiredKeys(_ sub: Subscription, schema: Schema) throws(CKError) {
        let fields = sub.recordType.flatMap { schema.recordTypes[$0]?.fields }
        for key in sub.notificationInfo.desiredKeys {
            try Names.validateFieldName(key)
            guard let fs = fields?[key] else {
                if case .query(let type, _, _, _, _, _) = sub.kind {
                    throw CKError.invalid("desired key '\(key)' is not a field of \(type)")
                }
                continue
            }
            let allowed: Set<FieldType.Base> = [.reference, .location, .timestamp, .int64, .double, .string]
            guard !fs.type.isList, allowed.contains(fs.type.base) else {
                throw CKError.invalid("desired key '\(key)' is a \(fs.type.wsName) field; notifications carry only reference, location, timestamp, number and string fields")
            }
        }
    }
}
