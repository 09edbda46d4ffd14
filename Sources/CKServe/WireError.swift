import CKModel

/// CKError on the wire: a request-level error as a non-2xx JSON response, and per-item error dictionaries.
public enum WireError {
    /// The HTTP status Web Services gives a request-level serverErrorCode (cloudkit.md §4.2; ck's choice where
    /// Apple's table is silent, docs/serve.md).
    public static func status(_ serverErrorCode: String) -> Int {
        switch serverErrorCode {
        case "ACCESS_DENIED": return 403
        case "ATOMIC_ERROR", "BAD_REQUEST", "NOT_SUPPORTED_BY_ZONE", "PARTIAL_FAILURE": return 400
        case "AUTHENTICATION_FAILED": return 401
        case "AUTHENTICATION_REQUIRED": return 421
        case "CONFLICT", "EXISTS", "UNIQUE_FIELD_ERROR": return 409
        case "NOT_FOUND", "ZONE_NOT_FOUND": return 404
        case "QUOTA_EXCEEDED": return 413
        case "THROTTLED": return 429
        case "TRY_AGAIN_LATER", "ZONE_BUSY": return 503
        case "VALIDATING_REFERENCE_ERROR": return 412
        case "METHOD_NOT_ALLOWED": return 405
        default: return 500
        }
    }

    /// `{uuid, serverErrorCode, reason, retryAfter?, redirectURL?}` with the code's status; THROTTLED also sends
    /// `Retry-After`.
    public static func response(_ error: CKError, requestID: String) -> HTTPResponse {
        var o: [String: JSON] = [
            "uuid": .string(error.requestID ?? requestID),
            "serverErrorCode": .string(error.serverErrorCode),
            "reason": .string(error.reason),
        ]
        if let retryAfter = error.retryAfter { o["retryAfter"] = retryAfterJSON(retryAfter) }
        if let redirect = error.details["redirectURL"] { o["redirectURL"] = redirect }
        var r = HTTPResponse.json(.object(o), status: status(error.serverErrorCode))
        r.loggedError = (error.serverErrorCode, error.reason)
        if let retryAfter = error.retryAfter {
            r.headers.append(("Retry-After", String(Int(retryAfter.rounded(.up)))))
        }
        return r
    }

    /// A failed item in its item's place: `{<key>: id, reason, serverErrorCode}` plus `retryAfter` where a retry
    /// makes sense (the live shape carries no uuid).
    public static func item(_ error: CKError, key: String, id: JSON) -> JSON {
        var o: [String: JSON] = [key: id, "reason": .string(error.reason), "serverErrorCode": .string(error.serverErrorCode)]
        if let retryAfter = error.retryAfter { o["retryAfter"] = retryAfterJSON(retryAfter) }
        return .object(o)
    }

    private static func retryAfterJSON(_ seconds: Double) -> JSON {
        seconds == seconds.rounded() ? .int(Int64(seconds)) : .double(seconds)
    }
}
