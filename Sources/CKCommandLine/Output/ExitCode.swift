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
    /// Ctrl-C (SIGINT) stopped the command, which said how far it got: 128 + 2, as a shell reports it.
    public static let interrupted: Int32 = 130

    /// One row of the exit-code table: a code, what it means, and the CloudKit errors that end with it.
    struct Row {
        let code: Int32
        let meaning: String
        /// The errors mapped to this code; `of(_:)` reads them, so the table can't disagree with the mapping.
        let errors: [CKError.Code]
        /// Words after the error names: how to read them, or `…` for a code that takes every error not listed.
        let note: String

        init(_ code: Int32, _ meaning: String, _ errors: [CKError.Code] = [], note: String = "") {
            self.code = code
            self.meaning = meaning
            self.errors = errors
            self.note = note
        }

        /// The errors as `ck help exit-codes` and the man page show them.
        var errorText: String {
            let names = errors.map(\.name).joined(separator: ", ")
            if note.isEmpty { return names }
            return note == "…" ? names + ", " + note : names + " " + note
        }
    }

    /// The table behind `of(_:)`, `ck help exit-codes` and the man page. An error no row lists exits `failure`.
    static let table: [Row] = [
        Row(success, "success"),
        Row(failure, "failed, not otherwise listed", [.internalError, .serverRejectedRequest, .incompatibleVersion], note: "…"),
        Row(notFound, "not found", [.unknownItem, .zoneNotFound, .userDeletedZone, .badContainer]),
        Row(conflict, "conflict", [.serverRecordChanged, .alreadyShared], note: "(EXISTS on create, CONFLICT on a stale change tag; a record already in a share)"),
        Row(retryLater, "retry later (stderr says after how long)",
            [.requestRateLimited, .zoneBusy, .serviceUnavailable, .networkUnavailable, .networkFailure, .accountTemporarilyUnavailable]),
        Row(quotaExceeded, "quota exceeded", [.quotaExceeded]),
        Row(notAllowed, "not allowed", [.permissionFailure, .notAuthenticated, .badDatabase, .missingEntitlement, .managedAccountRestricted,
                                               .participantMayNeedVerification]),
        Row(rejectedInput, "rejected input", [.invalidArguments, .constraintViolation, .limitExceeded, .referenceViolation, .assetFileNotFound,
                                                    .tooManyParticipants]),
        Row(changeTokenExpired, "change token expired", [.changeTokenExpired]),
        Row(partialFailure, "partial failure", [.partialFailure, .batchRequestFailed]),
        Row(usage, "usage error (as cktool)"),
        Row(interrupted, "interrupted by Ctrl-C (a --batch says how many it saved)"),
    ]

    /// Each listed error's code, built once from `table`.
    private static let byError: [CKError.Code: Int32] = {
        var map: [CKError.Code: Int32] = [:]
        for row in table { for e in row.errors { map[e] = row.code } }
        return map
    }()

    /// The exit code for a CloudKit error code.
    public static func of(_ code: CKError.Code) -> Int32 { byError[code] ?? failure }
}
