import CKModel
import CKSchema

/// The permission stage for records: every record an operation's body reads or writes, and every record type it
/// checks without a record, passes here, and every answer comes from one function, `decides`. The pipeline builds
/// the gate (bodies can't: its initializer is private) with the caller's account and roles, and for a record
/// modify with the fault engine, so a written record's fault point and its grant check are one call. The private
/// database is its owner's alone, so only the public database consults grants (CloudKit's security roles).
package struct RecordGate {
    private let caller: Caller
    private let database: DatabaseScope
    /// Signed in with a usable account: holds `_icloud`.
    private let signedIn: Bool
    /// Custom roles assigned to the caller in this environment.
    private let roles: [String]
    /// An administrator's view (fixtures with --all-users): grants are not consulted.
    private let administrator: Bool
    /// Whether the container lists the caller (a role can be assigned only to a listed user).
    private let listed: Bool
    /// The fault stage's engine and the operation's zone, for rules that target records; nil for a gate that
    /// only reads (a subscription owner's).
    private let faults: (engine: FaultEngine, zone: String?)?
    /// In the shared database: what the caller's accepted shares reach in the operation's zone (nil elsewhere,
    /// and for a shared-database operation on no zone).
    package let shares: ShareView?

    private init(caller: Caller, database: DatabaseScope, signedIn: Bool, roles: [String], administrator: Bool,
                 listed: Bool, faults: (engine: FaultEngine, zone: String?)?, shares: ShareView? = nil) {
        self.caller = caller
        self.database = database
        self.signedIn = signedIn
        self.roles = roles
        self.administrator = administrator
        self.listed = listed
        self.faults = faults
        self.shares = shares
    }

    /// The gate of an operation, built by `perform` once the zone is resolved; `listed` says whether the container
    /// lists the caller.
    static func operation(_ context: OperationContext, database: DatabaseScope, roles: [String], administrator: Bool,
                          listed: Bool, faults: FaultEngine, shares: ShareView?) -> RecordGate {
        RecordGate(caller: context.caller, database: database, signedIn: context.accountStatus.isSignedIn, roles: roles,
                   administrator: administrator, listed: listed, faults: (faults, context.zone?.zoneName), shares: shares)
    }

    /// The view of a public-database subscription's owner (nil: a user no longer known): a notification never
    /// reveals a record its owner may not read.
    package static func subscriber(_ user: ContainerUser?, environment: Environment) -> RecordGate {
        let caller = user.map { Caller(userName: $0.name, deviceID: RecordStamp.deviceID) } ?? Caller.anonymous()
        return RecordGate(caller: caller, database: .public, signedIn: user?.accountStatus.isSignedIn ?? false,
                          roles: user?.roles[environment] ?? [], administrator: false, listed: user != nil, faults: nil)
    }

    /// The same caller's gate for records of another database (fixtures import creates public records from a
    /// private database's operation).
    package func scoped(to database: DatabaseScope) -> RecordGate {
        RecordGate(caller: caller, database: database, signedIn: signedIn, roles: roles, administrator: administrator, listed: listed,
                   faults: faults, shares: database == .shared ? shares : nil)
    }

    // MARK: Reads

    /// Whether every record of the database is the caller's to read, so a body may count without looking at each.
    package var readsEveryRecord: Bool { administrator || database == .private }

    /// Whether the caller may read `record`: paths that list records filter with it.
    package func mayRead(_ record: Record, schema: Schema) -> Bool {
        decides(.read, type: record.recordType, record: record, schema: schema)
    }

    /// Refuses a record the caller may not read (permissionFailure, ACCESS_DENIED): paths that name records.
    package func read(_ record: Record, schema: Schema) throws(CKError) {
        // The shared database shows only shared records: one outside the caller's shares is not there at all.
        if database == .shared, !decides(.read, type: record.recordType, record: record, schema: schema) {
            throw CKError(.unknownItem, "Record not found: '\(record.recordName)' in the shared zone \(record.zoneID.zoneName)")
        }
        if !decides(.read, type: record.recordType, record: record, schema: schema) {
            throw denial(.read, type: record.recordType, record: record, schema: schema)
        }
    }

    /// Refuses a record type the caller may not read, for what reads records of a type not yet found (a
    /// subscription's query).
    package func read(type: String, schema: Schema) throws(CKError) {
        if !decides(.read, type: type, record: nil, schema: schema) { throw denial(.read, type: type, record: nil, schema: schema) }
    }

    /// Refuses a query of a type the caller may not read. READ granted to `_creator` only lets a signed-in user
    /// query: the query runs, and `mayRead` answers with the caller's own records.
    package func query(type: String, schema: Schema) throws(CKError) {
        if decides(.read, type: type, record: nil, schema: schema) { return }
        let creatorReads = (schema.recordTypes[type]?.grants ?? []).contains { $0.role == "_creator" && $0.permissions.contains(.read) }
        if creatorReads && caller.userRecordName != nil { return }
        throw denial(.read, type: type, record: nil, schema: schema)
    }

    // MARK: Writes

    /// Why the caller may not create a record of `type`, or nil when it may (fixtures import lists every refusal).
    package func createRefusal(type: String, schema: Schema) -> CKError? {
        decides(.create, type: type, record: nil, schema: schema) ? nil : denial(.create, type: type, record: nil, schema: schema)
    }

    /// Why the caller may not change or delete `record` (its type's WRITE grant), or nil when it may: fixtures
    /// import keeps the public records its caller may not delete.
    package func writeRefusal(_ record: Record, schema: Schema) -> CKError? {
        decides(.write, type: record.recordType, record: record, schema: schema)
            ? nil : denial(.write, type: record.recordType, record: record, schema: schema)
    }

    /// What a write asks of the grants, once the body's own checks of the record have passed.
    package struct Write<T> {
        package var permission: Grant.Permission
        package var type: String
        /// The record as it is (nil: one not yet created).
        package var record: Record?
        /// What the body's checks found, handed back by `write`.
        package var value: T
        /// A new record's parent: in the shared database, a record is created only under a shared parent.
        package var parent: String?

        package init(_ permission: Grant.Permission, type: String, record: Record?, value: T, parent: String? = nil) {
            self.permission = permission
            self.type = type
            self.record = record
            self.value = value
            self.parent = parent
        }
    }

    /// A record a body saves or deletes, in CloudKit's order: the record's fault point (a firing rule's error is
    /// thrown; an after-commit rule's is put in `lostResponse`), then `checks` (the body's own refusals, which
    /// say what the write asks), then the grants (permissionFailure, ACCESS_DENIED). `type` is the type the
    /// fault rules see before the checks ran.
    package func write<T>(_ name: String, _ op: FaultRule.Op, type: String?, schema: Schema, lostResponse: inout CKError?,
                          checks: () throws(CKError) -> Write<T>) throws(CKError) -> T {
        if let (engine, zone) = faults {
            let point = FaultPoint(ops: [op], zone: zone, database: database, user: caller.userName, record: (name, type))
            if let lost = try engine.inject(point) { lostResponse = lost }
        }
        let asked = try checks()
        if let shares, database == .shared {
            try shared(asked.permission, name: name, record: asked.record, parent: asked.parent, view: shares)
            return asked.value
        }
        if !decides(asked.permission, type: asked.type, record: asked.record, schema: schema) {
            throw denial(asked.permission, type: asked.type, record: asked.record, schema: schema)
        }
        return asked.value
    }

    // MARK: The decision

    /// The one decision: whether the grants give `permission` on a record (nil: one not yet created) of `type`.
    private func decides(_ permission: Grant.Permission, type: String, record: Record?, schema: Schema) -> Bool {
        if administrator || database == .private { return true }
        if database == .shared {
            // Reads of a type are allowed (a query then keeps the shared records); a record needs a share.
            guard let record else { return permission == .read }
            guard let p = shares?.access(record) else { return false }
            return permission == .read || p == .readWrite
        }
        if type == Names.userRecordType {
            // A user record: world-readable, changed only by its own user, never created or deleted by clients.
            switch permission {
            case .read: return true
            case .write: return record != nil && caller.userRecordName == record?.recordName
            case .create: return false
            }
        }
        let grants = schema.recordTypes[type]?.grants ?? RecordTypeSchema.defaultGrants
        let mine = held(creator: record?.created.userRecordName)
        return grants.contains { g in g.permissions.contains(permission) && mine.contains(g.role) }
    }

    /// The roles the caller holds for a record of a type (with `_creator` when it created that record).
    private func held(creator: String?) -> [String] {
        var out = ["_world"]
        if signedIn { out.append("_icloud") }
        if let me = caller.userRecordName, creator == me { out.append("_creator") }
        return out + roles
    }

    /// The shared database's decision for a write: the caller's accepted share must reach the record (a new one:
    /// its parent) with readWrite; only the owner deletes a hierarchy's root, or changes a share.
    private func shared(_ permission: Grant.Permission, name: String, record: Record?, parent: String?, view: ShareView) throws(CKError) {
        let who = caller.description
        func refuse(_ why: String, hint: String) -> CKError {
            CKError(.permissionFailure, "\(permission.rawValue) operation not permitted", serverErrorCode: "ACCESS_DENIED", hint: hint,
                    details: ["context": .string(why), "rule": .string("shared database: " + why)])
        }
        if let record, record.isShare {
            throw refuse("only the owner changes share '\(name)'; \(who) is a participant",
                         hint: "a participant leaves a share by deleting it from its shared database ('ck share leave')")
        }
        let reach: Share.Permission?
        if let record { reach = view.access(record) } else if let parent { reach = view.access(name: name, parent: parent) } else if view.isZoneWide {
            reach = view.access(name: name, parent: nil)
        } else {
            throw refuse("record '\(name)' has no parent in a shared hierarchy; \(who) may add records only under a shared parent",
                         hint: "save it with a parent that is in the share (--parent <record>)")
        }
        guard let reach else {
            throw refuse("record '\(name)' is not in a share \(who) has accepted",
                         hint: "only records of a share you accepted are in your shared database ('ck share list')")
        }
        guard reach == .readWrite else {
            throw refuse("\(who) takes part in this share with readOnly permission",
                         hint: "the share's owner can give readWrite: ck share invite <share> <user> --permission readWrite")
        }
    }

    /// CloudKit's permissionFailure (ACCESS_DENIED) for a permission the grants don't give.
    private func denial(_ permission: Grant.Permission, type: String, record: Record?, schema: Schema) -> CKError {
        if database == .shared {
            let why = "record '\(record?.recordName ?? type)' is not in a share \(caller.description) has accepted"
            return CKError(.permissionFailure, "\(permission.rawValue) operation not permitted", serverErrorCode: "ACCESS_DENIED",
                           hint: "only records of a share you accepted are in your shared database ('ck share list')",
                           details: ["context": .string(why), "rule": .string("shared database: " + why)])
        }
        let holds = held(creator: record?.created.userRecordName)
        let grants = schema.recordTypes[type]?.grants ?? RecordTypeSchema.defaultGrants
        let grantedTo = grants.filter { $0.permissions.contains(permission) }.map(\.role)
        let given = grantedTo.isEmpty ? "grants \(permission.rawValue) to no role" : "grants \(permission.rawValue) to " + grantedTo.joined(separator: ", ")
        let who = caller.description
        let context = type == Names.userRecordType
            ? "user records are created by CloudKit and changed only by their own user; \(who) holds \(holds.joined(separator: ", "))"
            : "record type \(type) \(given); \(who) holds \(holds.joined(separator: ", "))"
        let hint: String
        if type == Names.userRecordType {
            hint = "a user may add fields to its own user record only (ck record save Users --name <its userRecordName> …)"
        } else if !signedIn && grantedTo.contains("_icloud") {
            hint = "sign in: act as a user with an available account (--as NAME)"
        } else if let role = grantedTo.first(where: { !$0.hasPrefix("_") }), let user = caller.userName {
            // A custom role has the permission: name it and the user, the one command that lets this through.
            let others = grantedTo.filter { !$0.hasPrefix("_") && $0 != role }
            // A role goes to a listed user only: one the container has not listed yet is listed first.
            let assign = (listed ? "" : "'ck user create \(user)', then ") + "'ck role assign \(role) \(user)'"
            hint = "assign the role that has it: \(assign)" + (others.isEmpty ? "" : " (or " + others.joined(separator: ", ") + ")")
                + ", or grant it in the schema (GRANT \(permission.rawValue) TO \"_icloud\" in RECORD TYPE \(type), then 'ck schema import')"
        } else {
            hint = "grant it in the schema (GRANT \(permission.rawValue) TO \"_icloud\" in RECORD TYPE \(type), then 'ck schema import'), or assign a role that has it ('ck role assign <role> <user>')"
        }
        // `rule`: the decision in one line for a request log (`ck serve log`); CKError.json leaves it out.
        return CKError(.permissionFailure, "\(permission.rawValue) operation not permitted", serverErrorCode: "ACCESS_DENIED", hint: hint,
                       details: ["context": .string(context), "recordType": .string(type), "permission": .string(permission.rawValue),
                                 "roles": .array(holds.map { .string($0) }), "rule": .string("\(database.rawValue) database: " + context)])
    }
}
