
/// What a `cloudkit.share` record holds beyond its fields (CKShare): who takes part, with which permission, and
/// what it shares (a hierarchy from `rootRecordName`, or the whole zone when that is nil).
public struct Share: Equatable, Sendable {
    /// The record type of shares.
    public static let recordType = "cloudkit.share"
    /// The record name of a zone-wide share (CKRecordNameZoneWideShare).
    public static let zoneShareName = "cloudkit.zoneshare"
    /// The share's title field (CKShare.SystemFieldKey.title).
    public static let titleKey = "cloudkit.title"
    /// The system field keys of a share (CKShare.SystemFieldKey): the only dotted field names, on shares only.
    public static let systemFieldKeys: Set<String> = ["cloudkit.title", "cloudkit.type", "cloudkit.thumbnailImageData"]
    /// CloudKit's limit on participants, the owner included.
    public static let maxParticipants = 100

    /// CKShare.ParticipantPermission.
    public enum Permission: String, Sendable, CaseIterable, WireNamed {
        case none, readOnly, readWrite

        /// The Web Services spelling.
        public var wireName: String {
            switch self {
            case .none: return "NONE"
            case .readOnly: return "READ_ONLY"
            case .readWrite: return "READ_WRITE"
            }
        }

    }

    /// CKShare.ParticipantRole.
    public enum Role: String, Sendable, CaseIterable, WireNamed {
        case owner, administrator, privateUser, publicUser

        /// The Web Services participant `type` (invited users are `USER`; `PRIVATE_USER` is read too).
        public var wireName: String {
            switch self {
            case .owner: return "OWNER"
            case .administrator: return "ADMINISTRATOR"
            case .privateUser: return "USER"
            case .publicUser: return "PUBLIC_USER"
            }
        }

        /// CloudKit JS's name for invited users.
        public static let aliases = ["PRIVATE_USER": Role.privateUser]
    }

    /// CKShare.ParticipantAcceptanceStatus.
    public enum Acceptance: String, Sendable, CaseIterable, WireNamed {
        case pending, accepted, removed

        /// The Web Services spelling.
        public var wireName: String {
            switch self {
            case .pending: return "INVITED"
            case .accepted: return "ACCEPTED"
            case .removed: return "REMOVED"
            }
        }

    }

    /// One participant (CKShare.Participant): a user known by user record name, and by the name ck knows it by.
    public struct Participant: Equatable, Sendable {
        public var userRecordName: String
        /// The ck user name, carried as the identity's given name.
        public var userName: String
        public var role: Role
        public var permission: Permission
        public var acceptance: Acceptance

        public init(userRecordName: String, userName: String, role: Role, permission: Permission, acceptance: Acceptance) {
            self.userRecordName = userRecordName
            self.userName = userName
            self.role = role
            self.permission = permission
            self.acceptance = acceptance
        }

        /// The Web Services participant dictionary.
        public var json: JSON {
            .object(["participantId": .string(userRecordName),
                     "userIdentity": .object(["userRecordName": .string(userRecordName),
                                              "nameComponents": .object(["givenName": .string(userName)])]),
                     "type": .string(role.wireName), "acceptanceStatus": .string(acceptance.wireName),
                     "permission": .string(permission.wireName)])
        }

        /// Reads a participant dictionary (stored, or sent by a client).
        public init(json: JSON, path: String) throws(CKError) {
            guard case .object(let o) = json else { throw CKError.invalid("\(path): expected a participant object") }
            let identity = o["userIdentity"]
            guard let urn = identity?["userRecordName"]?.stringValue ?? o["participantId"]?.stringValue else {
                throw CKError.invalid("\(path).userIdentity.userRecordName: missing (a participant is named by its user record name)")
            }
            let name = identity?["nameComponents"]?["givenName"]?.stringValue ?? urn
            func read<T>(_ key: String, _ make: (String) -> T?, default d: T, _ allowed: String) throws(CKError) -> T {
                guard let v = o[key], !v.isNull else { return d }
                guard let s = v.stringValue, let t = make(s) else {
                    throw CKError.invalid("\(path).\(key): '\(v.stringValue ?? v.serialized())' is not one of \(allowed)")
                }
                return t
            }
            self.init(userRecordName: urn, userName: name,
                      role: try read("type", Role.init(name:), default: .privateUser, "OWNER, ADMINISTRATOR, USER, PUBLIC_USER"),
                      permission: try read("permission", Permission.init(name:), default: .readOnly, "NONE, READ_ONLY, READ_WRITE"),
                      acceptance: try read("acceptanceStatus", Acceptance.init(name:), default: .pending, "INVITED, ACCEPTED, REMOVED"))
        }
    }

    public var publicPermission: Permission
    /// The owner first, then the others in the order they joined.
    public var participants: [Participant]
    /// The shared hierarchy's root; nil for a zone-wide share.
    public var rootRecordName: String?

    public init(publicPermission: Permission, participants: [Participant], rootRecordName: String?) {
        self.publicPermission = publicPermission
        self.participants = participants
        self.rootRecordName = rootRecordName
    }

    /// The owner, who created the share.
    public var owner: Participant? { participants.first { $0.role == .owner } }

    /// A participant by user record name.
    public func participant(_ userRecordName: String) -> Participant? {
        participants.first { $0.userRecordName == userRecordName }
    }

    /// What a participant may do with the shared records: nil when it may not see them (not a participant, or
    /// not accepted).
    public func access(for userRecordName: String) -> Permission? {
        guard let p = participant(userRecordName), p.acceptance == .accepted, p.permission != .none else { return nil }
        return p.permission
    }

    /// The share URL for a short GUID: CloudKit's form (ck resolves it offline; docs/sharing.md).
    public static func url(shortGUID: String) -> String { "https://www.icloud.com/share/" + shortGUID }

    /// Reads a share URL, or a bare short GUID; nil when it is neither.
    public static func shortGUID(from text: String) -> String? {
        var s = Substring(text)
        for prefix in ["https://www.icloud.com/share/", "http://www.icloud.com/share/", "www.icloud.com/share/"] where s.hasPrefix(prefix) {
            s = s.dropFirst(prefix.count)
            break
        }
        if let hash = s.firstIndex(where: { $0 == "#" || $0 == "?" }) { s = s[..<hash] }
        if s.hasSuffix("/") { s = s.dropLast() }
        guard !s.isEmpty, s.count <= 64, s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else { return nil }
        return String(s)
    }

    /// A new short GUID: random, so a URL can't be guessed from names; a root keeps its GUID across reshares.
    public static func makeShortGUID() -> String {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var g = SystemRandomNumberGenerator()
        return "0" + String((0..<24).map { _ in alphabet[Int(g.next() % UInt64(alphabet.count))] })
    }
}

/// What a save of a share record asks beyond its fields: records/modify's `forRecord`, `publicPermission` and
/// `participants`. A nil member keeps what the server has.
public struct ShareInput: Sendable {
    /// The root of a new hierarchy share (saved in the same request).
    public var forRecord: String?
    public var publicPermission: Share.Permission?
    /// The whole participant list as the client wants it (the owner may be left out; acceptance is the server's).
    public var participants: [Share.Participant]?

    public init(forRecord: String? = nil, publicPermission: Share.Permission? = nil, participants: [Share.Participant]? = nil) {
        self.forRecord = forRecord
        self.publicPermission = publicPermission
        self.participants = participants
    }
}

/// A share enum with a native spelling (its raw value) and a Web Services one.
public protocol WireNamed: RawRepresentable, CaseIterable where RawValue == String {
    /// The Web Services spelling.
    var wireName: String { get }
    /// Other spellings read as a case.
    static var aliases: [String: Self] { get }
}

extension WireNamed {
    public static var aliases: [String: Self] { [:] }

    /// Reads the native (`readOnly`) or Web Services (`READ_ONLY`) spelling, or an alias.
    public init?(name: String) {
        guard let value = Self(rawValue: name) ?? Self.aliases[name] ?? Self.allCases.first(where: { $0.wireName == name }) else { return nil }
        self = value
    }
}
