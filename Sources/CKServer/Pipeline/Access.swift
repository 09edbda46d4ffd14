import CKModel
import CKSchema

/// The permission stage: who the caller is to the public database's grants (CloudKit's security roles).
/// The private database is its owner's alone, so only the public database consults grants.
package struct Access: Sendable {
    package let caller: Caller
    package let database: DatabaseScope
    /// Signed in with a usable account: holds `_icloud`.
    package let signedIn: Bool
    /// Custom roles assigned to the caller in this environment.
    package let roles: [String]
    /// An administrator's view (fixtures with --all-users): grants are not consulted.
    package let administrator: Bool

    /// The type of the records CloudKit keeps one per user.
    package static let userRecordType = "Users"

    /// The roles the caller holds for a record of a type (with `_creator` when it created that record).
    package func held(creator: String?) -> [String] {
        var out = ["_world"]
        if signedIn { out.append("_icloud") }
        if let me = caller.userRecordName, creator == me { out.append("_creator") }
        return out + roles
    }

    /// Whether the grants give `permission` on a record (nil: one not yet created) of `type`.
    package func allows(_ permission: Grant.Permission, type: String, record: Record?, schema: Schema) -> Bool {
        if administrator || database != .public { return true }
        if type == Access.userRecordType {
            // A user record: world-readable, changed only by its own user, never created or deleted by clients.
            switch permission {
            case .read: return true
            case .write: return record != nil && caller.userRecordName == record?.recordName
            case .create: return false
            }
        }
        let grants = schema.recordTypes[type]?.grants ?? RecordTypeSchema.defaultGrants
        let mine = Set(held(creator: record?.created.userRecordName))
        return grants.contains { $0.permissions.contains(permission) && mine.contains($0.role) }
    }

    /// Throws CloudKit's permissionFailure (ACCESS_DENIED) unless the grants give `permission`.
    package func require(_ permission: Grant.Permission, type: String, record: Record?, schema: Schema) throws(CKError) {
        if allows(permission, type: type, record: record, schema: schema) { return }
        throw denial(permission, type: type, record: record, schema: schema)
    }

    package func denial(_ permission: Grant.Permission, type: String, record: Record?, schema: Schema) -> CKError {
        let holds = held(creator: record?.created.userRecordName)
        let grants = schema.recordTypes[type]?.grants ?? RecordTypeSchema.defaultGrants
        let grantedTo = grants.filter { $0.permissions.contains(permission) }.map(\.role)
        let given = grantedTo.isEmpty ? "grants \(permission.rawValue) to no role" : "grants \(permission.rawValue) to " + grantedTo.joined(separator: ", ")
        let who = caller.description
        let context = type == Access.userRecordType
            ? "user records are created by CloudKit and changed only by their own user; \(who) holds \(holds.joined(separator: ", "))"
            : "record type \(type) \(given); \(who) holds \(holds.joined(separator: ", "))"
        let hint: String
        if type == Access.userRecordType {
            hint = "a user may add fields to its own user record only (ck record save Users --name <its userRecordName> …)"
        } else if !signedIn && grantedTo.contains("_icloud") {
            hint = "sign in: act as a user with an available account (--as NAME)"
        } else {
            hint = "grant it in the schema (GRANT \(permission.rawValue) TO \"_icloud\" in RECORD TYPE \(type), then 'ck schema import'), or assign a role that has it ('ck role assign <role> <user>')"
        }
        return CKError(.permissionFailure, "\(permission.rawValue) operation not permitted", serverErrorCode: "ACCESS_DENIED", hint: hint,
                       details: ["context": .string(context), "recordType": .string(type), "permission": .string(permission.rawValue),
                                 "roles": .array(holds.map { .string($0) })])
    }
}
