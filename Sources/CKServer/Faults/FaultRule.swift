import CKModel

/// One injected fault: which operations it matches, the CloudKit error it answers, and how often.
public struct FaultRule: Sendable, Equatable {
    /// The operation names a rule matches (`ck fault add --op`).
    public enum Op: String, CaseIterable, Sendable {
        case save, fetch, delete, query, zone, subscription, changes, notification, any
    }

    public var id: String
    public var error: CKError.Code
    public var op: Op = .any
    /// Per-record targets: a rule with either fires for matching records inside a save or delete request.
    public var recordType: String?
    public var recordName: String?
    public var zone: String?
    public var database: DatabaseScope?
    public var user: String?
    public var retryAfter: Double?
    /// Fires this many more times, then the rule is gone; nil: every time (or by probability).
    public var times: Int?
    public var probability: Double?
    public var seed: UInt64?
    /// Matching operations let through before the rule starts firing.
    public var after: Int = 0
    /// networkFailure only: the operation is applied, then its response is lost.
    public var afterCommit = false
    /// Matching operations seen so far (for `after`).
    public var seen: Int = 0
    /// Probability draws made so far: the next draw is a pure function of seed and this count.
    public var draws: Int = 0
    /// Times the rule fired.
    public var fired: Int = 0
    /// The end of the throttling window the rule opened when it last fired (ms on the store's clock): until
    /// then every matching operation is refused again, with the time left as its retryAfter.
    public var until: Int64?

    public init(id: String, error: CKError.Code) {
        self.id = id
        self.error = error
    }

    /// Errors that carry retryAfter, as CloudKit sends them (CKErrorRetryAfterKey).
    public static let retryable: Set<CKError.Code> = [.requestRateLimited, .zoneBusy, .serviceUnavailable, .accountTemporarilyUnavailable]
    /// Errors CloudKit answers while a client is throttled: once one fires, the rule keeps refusing until its
    /// retryAfter has passed on the store's clock (as does any rule given a retryAfter).
    public static let throttling: Set<CKError.Code> = [.requestRateLimited, .zoneBusy, .serviceUnavailable]
    /// The wait an injected retryable error carries when the rule names none.
    public static let defaultRetryAfter = 2.0
    /// Errors a rule may inject: all of CloudKit's, except the two that only wrap per-item errors.
    public static let injectable: [CKError.Code] = CKError.Code.allCases.filter { $0 != .partialFailure && $0 != .batchRequestFailed }

    /// Whether the rule targets records inside a modify request rather than whole operations.
    public var targetsRecords: Bool { recordType != nil || recordName != nil }

    /// Checks the rule's options fit together; the refusal lists what is accepted.
    public func validate() throws(CKError) {
        if !FaultRule.injectable.contains(error) {
            throw CKError.invalid("\(error.name) is not injected directly: it wraps per-record errors",
                                  hint: "target records with --type or --record to get a partialFailure; errors: " + FaultRule.injectable.map(\.name).joined(separator: ", "))
        }
        if retryAfter != nil && !FaultRule.retryable.contains(error) {
            throw CKError.invalid("--retry-after does not fit \(error.name): only " + FaultRule.retryable.map(\.name).sorted().joined(separator: ", ") + " carry retryAfter")
        }
        if let r = retryAfter, !(r >= 0 && r <= 86_400) { throw CKError.invalid("--retry-after must be between 0 and 86400 seconds, not \(r)") }
        if afterCommit && error != .networkFailure {
            throw CKError.invalid("--after-commit fits networkFailure only (the response to an applied request is lost), not \(error.name)")
        }
        if let t = times, t < 1 { throw CKError.invalid("--times must be 1 or more, not \(t)", hint: "omit --times for a rule that fires every time; 'ck fault clear' removes rules") }
        if let p = probability, !(p >= 0 && p <= 1) { throw CKError.invalid("--probability must be between 0 and 1, not \(p)") }
        if times != nil && probability != nil { throw CKError.invalid("--times and --probability exclude each other") }
        if seed != nil && probability == nil { throw CKError.invalid("--seed goes with --probability") }
        if after < 0 { throw CKError.invalid("--after must be 0 or more, not \(after)") }
        if targetsRecords && ![.save, .delete, .any].contains(op) {
            throw CKError.invalid("--type and --record target records in save and delete requests, so --op must be save, delete or any, not \(op.rawValue)")
        }
        try Names.validateUserName(user ?? "default")
    }

    /// The operation names an operation kind answers to (a record modify is save and/or delete, by what it carries).
    package static func ops(of kind: OperationKind) -> Set<Op> {
        switch kind {
        case .recordModify, .fixturesImport: return [.save, .delete]
        case .assetUpload: return [.save]
        case .recordFetch, .recordList, .fixturesExport, .quotaUsage, .assetDownload: return [.fetch]
        case .query, .queryPlan: return [.query]
        case .zoneCreate, .zoneDelete, .zonePurge, .zoneList, .zoneSummary: return [.zone]
        case .subscriptionSave, .subscriptionDelete, .subscriptionList: return [.subscription]
        case .zoneChanges, .databaseChanges: return [.changes]
        case .notificationList, .notificationRead: return [.notification]
        // The key-value store is no CloudKit database operation: only --op any reaches it.
        case .keyValueRead, .keyValueWrite: return []
        // Developer work is not CloudKit traffic: `ck fault` rules never fail it (the pipeline's hooks still see it).
        default: return []
        }
    }

    /// Whether the rule concerns a point of an operation (before the probability and counters decide).
    package func matches(_ p: FaultPoint) -> Bool {
        if targetsRecords != (p.record != nil) { return false }
        if op != .any && !p.ops.contains(op) { return false }
        if let zone, zone != p.zone { return false }
        if let database, database != p.database { return false }
        if let user, user != p.user { return false }
        if let recordType, recordType != p.record?.type { return false }
        if let recordName, recordName != p.record?.name { return false }
        return true
    }

    /// The n-th draw of a seeded rule, uniform in [0, 1): SplitMix64 of seed + n, the same on every run.
    package static func draw(seed: UInt64, index: Int) -> Double {
        var z = seed &+ UInt64(truncatingIfNeeded: index + 1) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(UInt64(1) << 53)
    }

    /// Whether the rule throttles by time: once fired, it refuses until its retryAfter has passed (`until`).
    public var throttles: Bool { retryAfter != nil || FaultRule.throttling.contains(error) }

    /// The retryAfter the rule's error carries, in seconds; nil for an error that carries none.
    public var wait: Double? { FaultRule.retryable.contains(error) ? (retryAfter ?? FaultRule.defaultRetryAfter) : nil }

    /// The error the rule answers with, as a client sees it; `left`: the time left in its window (ms), its retryAfter.
    package func failure(left: Int64? = nil) -> CKError {
        let wait = left.map { Double($0) / 1000 } ?? self.wait
        let reason = afterCommit
            ? "the request was applied but its response was lost (injected fault \(id)); fetch to find out what the server holds"
            : "injected fault \(id): \(FaultRule.describe(error))"
        return CKError(error, reason, retryAfter: wait, details: ["injectedFault": .string(id)])
    }

    /// CloudKit's description of an error, as its header gives it.
    package static func describe(_ code: CKError.Code) -> String {
        switch code {
        case .networkUnavailable: return "the network is not available; the request never reached the server"
        case .networkFailure: return "the network failed; the request never reached the server"
        case .serviceUnavailable: return "service unavailable"
        case .requestRateLimited: return "the client is being rate limited"
        case .zoneBusy: return "the zone is busy; try the operation again in a few seconds"
        case .accountTemporarilyUnavailable: return "the iCloud account is temporarily unavailable"
        case .notAuthenticated: return "no iCloud account is signed in"
        case .permissionFailure: return "permission failure"
        case .quotaExceeded: return "the storage quota is exceeded"
        case .zoneNotFound: return "the zone was not found"
        case .userDeletedZone: return "the user deleted this zone through the settings UI"
        case .changeTokenExpired: return "the change token is too old; the client must re-sync from scratch"
        case .limitExceeded: return "the request is too large; retry it as a smaller batch"
        case .serverRejectedRequest: return "the server rejected the request"
        case .internalError: return "CloudKit encountered an internal error"
        default: return code.name
        }
    }
}

/// One place in an operation where faults are checked: the whole operation, or one record of a modify request.
package struct FaultPoint {
    package var ops: Set<FaultRule.Op>
    package var zone: String?
    package var database: DatabaseScope
    package var user: String?
    package var record: (name: String, type: String?)?
}
