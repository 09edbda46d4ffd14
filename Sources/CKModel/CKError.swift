
/// The one error CKCore throws: CloudKit's error code, the Web Services serverErrorCode, a reason and retryAfter.
public struct CKError: Error, Sendable, CustomStringConvertible {
    /// CKError.Code values as in Apple's CKError.h.
    public enum Code: Int, Sendable, CaseIterable {
        case internalError = 1, partialFailure, networkUnavailable, networkFailure, badContainer,
             serviceUnavailable, requestRateLimited, missingEntitlement, notAuthenticated, permissionFailure,
             unknownItem, invalidArguments, resultsTruncated, serverRecordChanged, serverRejectedRequest,
             assetFileNotFound, assetFileModified, incompatibleVersion, constraintViolation, operationCancelled,
             changeTokenExpired, batchRequestFailed, zoneBusy, badDatabase, quotaExceeded, zoneNotFound,
             limitExceeded, userDeletedZone, tooManyParticipants, alreadyShared, referenceViolation,
             managedAccountRestricted, participantMayNeedVerification, serverResponseLost, assetNotAvailable,
             accountTemporarilyUnavailable, participantAlreadyInvited

        /// The Swift case name, as users see it in CloudKit logs.
        public var name: String { Code.names[rawValue - 1] }

        /// The case names in raw-value order (1…). A table rather than `String(describing:)`: in a static
        /// executable that reflection scans every protocol conformance, about 3 M instructions at start-up
        /// (the command tree lists these names), more than all of sqlite3's start-up.
        package static let names = [
            "internalError", "partialFailure", "networkUnavailable", "networkFailure", "badContainer",
            "serviceUnavailable", "requestRateLimited", "missingEntitlement", "notAuthenticated", "permissionFailure",
            "unknownItem", "invalidArguments", "resultsTruncated", "serverRecordChanged", "serverRejectedRequest",
            "assetFileNotFound", "assetFileModified", "incompatibleVersion", "constraintViolation", "operationCancelled",
            "changeTokenExpired", "batchRequestFailed", "zoneBusy", "badDatabase", "quotaExceeded", "zoneNotFound",
            "limitExceeded", "userDeletedZone", "tooManyParticipants", "alreadyShared", "referenceViolation",
            "managedAccountRestricted", "participantMayNeedVerification", "serverResponseLost", "assetNotAvailable",
            "accountTemporarilyUnavailable", "participantAlreadyInvited",
        ]

        /// Looks a code up by its case name.
        public init?(name: String) {
            guard let c = Code.allCases.first(where: { $0.name == name }) else { return nil }
            self = c
        }

        /// The Web Services serverErrorCode that corresponds to this code.
        public var defaultServerErrorCode: String {
            switch self {
            case .serverRecordChanged: return "CONFLICT"
            case .unknownItem: return "NOT_FOUND"
            case .zoneNotFound, .userDeletedZone: return "ZONE_NOT_FOUND"
            case .permissionFailure, .badDatabase, .badContainer, .missingEntitlement: return "ACCESS_DENIED"
            case .notAuthenticated: return "AUTHENTICATION_REQUIRED"
            case .invalidArguments, .limitExceeded, .changeTokenExpired: return "BAD_REQUEST"
            case .quotaExceeded: return "QUOTA_EXCEEDED"
            case .requestRateLimited: return "THROTTLED"
            case .serviceUnavailable, .zoneBusy, .networkFailure, .networkUnavailable,
                 .accountTemporarilyUnavailable: return "TRY_AGAIN_LATER"
            case .batchRequestFailed: return "ATOMIC_ERROR"
            // Web Services answers a partial failure with per-item errors in a 200 response; ck names it.
            case .partialFailure: return "PARTIAL_FAILURE"
            case .referenceViolation: return "VALIDATING_REFERENCE_ERROR"
            case .constraintViolation: return "UNIQUE_FIELD_ERROR"
            // A save naming an asset never uploaded is a bad request; an asset whose bytes can't be read, not found.
            case .assetFileNotFound: return "BAD_REQUEST"
            case .assetNotAvailable: return "NOT_FOUND"
            default: return "INTERNAL_ERROR"
            }
        }
    }

    /// One failed item of a batch (a record, zone or subscription).
    public struct ItemFailure: Sendable {
        public var id: String
        public var error: CKError
        public init(id: String, error: CKError) { self.id = id; self.error = error }
    }

    public var code: Code
    public var serverErrorCode: String
    public var reason: String
    /// Seconds to wait before retrying, where CloudKit would give one.
    public var retryAfter: Double?
    /// A next step for the user, shown as a `hint:` line.
    public var hint: String?
    /// Structured detail (server/client/ancestor records of a conflict, a file path, …).
    public var details: [String: JSON]
    /// Per-item failures of a partialFailure or batchRequestFailed.
    public var items: [ItemFailure]
    /// The file (and line) the error is about, as `path` or `path:line[:column]`, when it is about one; the reason
    /// then starts with it.
    public var place: String?
    /// The request this error answers, when it came over HTTP: the `uuid` of its Web Services error body and the
    /// `X-Apple-Request-UUID` header.
    public var requestID: String?

    public init(_ code: Code, _ reason: String, serverErrorCode: String? = nil, hint: String? = nil,
                retryAfter: Double? = nil, details: [String: JSON] = [:], items: [ItemFailure] = []) {
        self.code = code
        self.reason = reason
        self.serverErrorCode = serverErrorCode ?? code.defaultServerErrorCode
        self.hint = hint
        self.retryAfter = retryAfter
        self.details = details
        self.items = items
    }

    public var description: String { "\(code.name) (\(code.rawValue)): \(reason)" }

    /// The error as the answer to the request `id`: its uuid, unless it already answers one.
    public func answering(_ id: String) -> CKError {
        var e = self
        if e.requestID == nil { e.requestID = id }
        return e
    }

    /// The reason without the place it starts with.
    public var message: String {
        guard let place, reason.hasPrefix(place + ": ") else { return reason }
        return String(reason.dropFirst(place.count + 2))
    }

    /// The error as a diagnostic: its place, its message and its hint.
    public func diagnostic(_ severity: Diagnostic.Severity) -> Diagnostic {
        Diagnostic(severity, place: place, message, hint: hint)
    }

    /// The error as a Web Services-style error dictionary (with `uuid` when it answers a request).
    public var json: JSON {
        var o: [String: JSON] = [
            "ckErrorCode": .string(code.name), "code": .int(Int64(code.rawValue)),
            "serverErrorCode": .string(serverErrorCode), "reason": .string(reason),
        ]
        if let requestID { o["uuid"] = .string(requestID) }
        if let retryAfter { o["retryAfter"] = .double(retryAfter) }
        if let hint { o["hint"] = .string(hint) }
        // `rule` is for request logs (ck serve's): `context` already says the same to people and scripts.
        for (k, v) in details where k != "rule" { o[k] = v }
        if !items.isEmpty {
            o["errors"] = .array(items.map { item in
                var e = item.error.json.objectValue ?? [:]
                e["id"] = .string(item.id)
                // Each per-item error of a Web Services answer carries its request's uuid.
                if let uuid = item.error.requestID ?? requestID { e["uuid"] = .string(uuid) }
                return .object(e)
            })
        }
        return .object(o)
    }
}

extension CKError {
    package static func invalid(_ reason: String, hint: String? = nil) -> CKError {
        CKError(.invalidArguments, reason, hint: hint)
    }

    package static func internalError(_ reason: String, hint: String? = nil) -> CKError {
        CKError(.internalError, reason, hint: hint)
    }

    /// A file in the store that cannot be read as written; names the place and the next step.
    package static func corrupt(path: String, line: Int? = nil, column: Int? = nil, _ why: String) -> CKError {
        var place = path
        if let line { place += ":\(line)" }
        if let column { place += ":\(column)" }
        var e = CKError(.internalError, "\(place): \(why)",
                        hint: "nothing was overwritten; run 'ck doctor' to see what is wrong and 'ck doctor --repair' to move bad data aside",
                        details: ["path": .string(path)])
        e.place = place
        return e
    }
}
