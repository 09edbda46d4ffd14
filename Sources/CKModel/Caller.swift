
/// CKAccountStatus: the state of a user's iCloud account, as the container sees it.
public enum AccountStatus: String, CaseIterable, Sendable {
    case couldNotDetermine, available, restricted, noAccount, temporarilyUnavailable

    /// CKAccountStatus's raw value.
    public var code: Int {
        switch self {
        case .couldNotDetermine: return 0
        case .available: return 1
        case .restricted: return 2
        case .noAccount: return 3
        case .temporarilyUnavailable: return 4
        }
    }

    /// Whether operations that need a signed-in user may run.
    public var isSignedIn: Bool { self == .available }

    /// The error an operation that needs a signed-in user meets in this state; nil when it may run.
    package func refusal(for caller: Caller, _ what: String) -> CKError? {
        guard let name = caller.userName else {
            return CKError(.notAuthenticated, "no iCloud user is signed in, so \(what)",
                           hint: "act as a signed-in user with --as NAME (not --anonymous)")
        }
        switch self {
        case .available: return nil
        case .temporarilyUnavailable:
            return CKError(.accountTemporarilyUnavailable, "the iCloud account of user \(name) is temporarily unavailable, so \(what)",
                           hint: "try again later; 'ck account set available --as \(name)' brings the account back")
        case .noAccount, .restricted, .couldNotDetermine:
            return CKError(.notAuthenticated, "user \(name) has no usable iCloud account (account status \(rawValue)), so \(what)",
                           hint: "sign the user in with 'ck account set available --as \(name)'")
        }
    }
}

/// Who performs a server operation: a user known by name, nobody signed in, or the developer; and the device
/// it comes from.
public struct Caller: Sendable, Equatable {
    /// The user's name; nil when nobody is signed in (anonymous) and for the developer.
    public let userName: String?
    /// The device stamped as `deviceID` in created/modified.
    public var deviceID: String
    /// The declared developer (the command line's schema, container, user and fault work; a control plane):
    /// developer work is theirs alone, and client rules don't apply to them.
    public let isDeveloper: Bool

    package init(userName: String?, deviceID: String, isDeveloper: Bool = false) {
        self.userName = userName
        self.deviceID = deviceID
        self.isDeveloper = isDeveloper
    }

    /// The developer of the container, as in the CloudKit Console or cktool: not an iCloud user.
    public static let developer = Caller(userName: nil, deviceID: RecordStamp.deviceID, isDeveloper: true)

    /// A user, by the name it was created with (never a user record name).
    public static func user(_ name: String, deviceID: String = RecordStamp.deviceID) throws(CKError) -> Caller {
        try Names.validateUserName(name)
        return Caller(userName: name, deviceID: deviceID)
    }

    /// Nobody signed in: the public database can be read, nothing else.
    public static func anonymous(deviceID: String = RecordStamp.deviceID) -> Caller {
        Caller(userName: nil, deviceID: deviceID)
    }

    /// Nobody signed in (the developer is not a signed-in user either, but is not anonymous).
    public var isAnonymous: Bool { userName == nil && !isDeveloper }

    /// The caller's user record name; nil when anonymous.
    public var userRecordName: String? { userName.map(Caller.userRecordName(for:)) }

    /// The user record name for a user name: `_` and 32 hex digits, stable for the name.
    public static func userRecordName(for user: String) -> String {
        "_" + String(SHA256.hex(Array(("ck-user:" + user).utf8)).prefix(32))
    }

    /// How messages name the caller.
    public var description: String { isDeveloper ? "the developer" : userName.map { "user \($0)" } ?? "no signed-in user" }
}
