import CKModel

/// A CloudKit Web Services path: `/database/1/{container}/{environment}/{database}/{entity}/{action…}` or
/// `/device/1/{container}/{environment}/tokens/{action}` (also routed with a database segment, as MistKit sends it).
public struct WebServicesPath: Sendable, Equatable {
    /// `database` or `device`.
    public var module: String
    public var container: String
    public var environment: Environment
    /// nil for `/device/1/…` paths without a database segment.
    public var database: DatabaseScope?
    /// The operation's name as the request log shows it: `records/query`, `users/lookup/email`, `tokens/create`, …
    public var operation: String

    public init(module: String, container: String, environment: Environment, database: DatabaseScope?, operation: String) {
        self.module = module
        self.container = container
        self.environment = environment
        self.database = database
        self.operation = operation
    }

    /// Parses a request path; a path outside the Web Services namespace or with a bad segment is a BAD_REQUEST
    /// or NOT_FOUND naming the segment.
    public static func parse(_ path: String) throws(CKError) -> WebServicesPath {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        for (i, p) in parts.enumerated() {
            guard let decoded = HTTPRequest.percentDecoded(p.replacingOccurrences(of: "+", with: "%2B")) else {
                throw CKError(.invalidArguments, "the path segment '\(p)' has a malformed percent escape")
            }
            parts[i] = decoded
        }
        guard parts.count >= 2, parts[0] == "database" || parts[0] == "device" else {
            throw CKError(.unknownItem, "no such endpoint: \(path)", serverErrorCode: "NOT_FOUND")
        }
        guard parts[1] == "1" else {
            throw CKError(.invalidArguments, "unsupported protocol version '\(parts[1])' in \(path): Web Services paths begin /\(parts[0])/1/")
        }
        guard parts.count >= 4 else {
            throw CKError(.unknownItem, "no such endpoint: \(path) (expected /\(parts[0])/1/CONTAINER/ENVIRONMENT/…)", serverErrorCode: "NOT_FOUND")
        }
        let container = parts[2]
        guard let environment = Environment(rawValue: parts[3]) else {
            throw CKError(.invalidArguments, "unknown environment '\(parts[3])' in \(path): expected development or production")
        }
        var rest = Array(parts[4...])
        var database: DatabaseScope? = nil
        if let first = rest.first, let scope = DatabaseScope(rawValue: first) {
            database = scope
            rest.removeFirst()
        } else if parts[0] == "database" && rest.first != "subscriptions" {
            // Apple's subscriptions pages show no database segment (CloudKit JS sends one): those paths mean public.
            let seen = rest.first.map { "'\($0)'" } ?? "nothing"
            throw CKError(.invalidArguments, "unknown database \(seen) in \(path): expected public, private or shared")
        }
        guard !rest.isEmpty else {
            throw CKError(.unknownItem, "no such endpoint: \(path)", serverErrorCode: "NOT_FOUND")
        }
        return WebServicesPath(module: parts[0], container: container, environment: environment, database: database,
                               operation: rest.joined(separator: "/"))
    }
}
