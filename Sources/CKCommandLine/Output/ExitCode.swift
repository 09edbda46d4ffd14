import CKCore

/// ck's exit codes (docs/cli.md §5): the one place a CloudKit error becomes a number.
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let notFound: Int32 = 3
    public static let conflict: Int32 = 4
    public static let retryLater: Int32 = 5
    public static let quotaExceeded: Int32 = 6
    public static let notAllowed: Int32 = 7
    public static let rejectedInput: Int32 = 8
    public static let changeTokenExpired: Int32 = 9
    public static let partialFailure: Int32 = 10
    public static let usage: Int32 = 64

    /// The exit code for a CloudKit error code.
    public static func of(_ code: CKError.Code) -> Int32 {
        switch code {
        case .unknownItem, .zoneNotFound, .userDeletedZone, .badContainer: return notFound
        case .serverRecordChanged: return conflict
        case .requestRateLimited, .zoneBusy, .serviceUnavailable, .networkUnavailable, .networkFailure,
             .accountTemporarilyUnavailable: return retryLater
        case .quotaExceeded: return quotaExceeded
        case .permissionFailure, .notAuthenticated, .badDatabase, .missingEntitlement, .managedAccountRestricted: return notAllowed
        case .invalidArguments, .constraintViolation, .limitExceeded, .referenceViolation, .assetFileNotFound: return rejectedInput
        case .changeTokenExpired: return changeTokenExpired
        case .partialFailure, .batchRequestFailed: return partialFailure
        default: return failure
        }
    }

    /// The table behind `ck help exit-codes` and the man page.
    static let table: [(code: Int32, meaning: String, errors: String)] = [
        (0, "success", ""),
        (1, "failed, not otherwise listed", "internalError, serverRejectedRequest, incompatibleVersion, …"),
        (3, "not found", "unknownItem, zoneNotFound, userDeletedZone, badContainer"),
        (4, "conflict", "serverRecordChanged (EXISTS on create, CONFLICT on a stale change tag)"),
        (5, "retry later (stderr says after how long)", "requestRateLimited, zoneBusy, serviceUnavailable, networkUnavailable, networkFailure, accountTemporarilyUnavailable"),
        (6, "quota exceeded", "quotaExceeded"),
        (7, "not allowed", "permissionFailure, notAuthenticated, badDatabase, missingEntitlement, managedAccountRestricted"),
        (8, "rejected input", "invalidArguments, constraintViolation, limitExceeded, referenceViolation, assetFileNotFound"),
        (9, "change token expired", "changeTokenExpired"),
        (10, "partial failure", "partialFailure, batchRequestFailed"),
        (64, "usage error (as cktool)", ""),
    ]
}
