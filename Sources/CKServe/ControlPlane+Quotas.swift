import CKModel
import CKServer

/// `/_ck/quotas`: what `ck quota show` and `ck quota set` show and do, for the public database and every user.
extension ControlPlane {
    /// `GET /_ck/quotas` → `{container, environment, public: usage, users: [{user, userRecordName} + usage]}`, usage
    /// being `ck quota show -o json`'s `{quota, used, byZone, byRecordType}` counted in the environment. A user whose
    /// usage can't be read (an account that is not available) has `error` (its reason) in place of `used`.
    static func quotas(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let (container, environment) = try target(request, body: [:], server: server)
        var o = header(container, environment)
        o["public"] = usageJSON(try container.database(.public, environment: environment, caller: .developer).quotaUsage())
        o["users"] = .array(try container.users().map { u -> JSON in
            var entry: [String: JSON] = ["user": .string(u.name), "userRecordName": .string(u.userRecordName)]
            do throws(CKError) {
                let db = container.database(.private, environment: environment, caller: try .user(u.name))
                entry.merge(usageJSON(try db.quotaUsage()).objectValue ?? [:]) { a, _ in a }
            } catch {
                entry["quota"] = (try? container.quota(user: u.name)).flatMap { $0.map { .int($0) } } ?? .null
                entry["error"] = .string(error.reason)
            }
            return .object(entry)
        })
        return .object(o)
    }

    /// A database's quota and usage as `ck quota show -o json` prints it (without its `user`).
    static func usageJSON(_ u: QuotaUsage) -> JSON {
        .object(["quota": u.limit.map { .int($0) } ?? .null, "used": .int(u.used),
                 "byZone": .object(u.byZone.mapValues { .int($0) }), "byRecordType": .object(u.byType.mapValues { .int($0) })])
    }

    /// `POST /_ck/quotas` `{user | public: true, quota}` → `{user, quota}` as `ck quota set -o json`: `quota` bytes, a
    /// size as `ck quota set` takes it ("5MB", "1GiB"), or null / "none" to remove the quota.
    static func setQuota(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try actionBody(request, keys: ["user", "public", "quota"])
        let (container, _) = try target(request, body: body, server: server)
        let isPublic = try flag("public", body) ?? false
        let user: String?
        switch (isPublic, body["user"]) {
        case (true, let v?) where !v.isNull:
            throw CKError(.invalidArguments, "user: the public database's quota is the container's; name a user or public, not both")
        case (true, _): user = nil
        case (false, _): user = try required("user", body)
        }
        if let user { try Names.validateUserName(user) }
        let bytes: Int64?
        switch body["quota"] {
        case nil: throw CKError(.invalidArguments, "quota: missing (bytes, a size such as \"5MB\", or null to remove the quota)")
        case .null?: bytes = nil
        case .string(let text)?:
            if text == "none" { bytes = nil } else {
                do throws(CKError) { bytes = try CKContainer.parseSize(text) } catch {
                    throw CKError(.invalidArguments, "quota: " + error.reason)
                }
            }
        case let v?:
            guard let n = v.int64Value, n >= 0 else {
                throw CKError(.invalidArguments, "quota: expected a whole number of bytes of at least 0, a size such as \"5MB\", or null; got \(v.kindName)")
            }
            bytes = n
        }
        try container.setQuota(bytes, user: user)
        return .object(["user": user.map { .string($0) } ?? .null, "quota": bytes.map { .int($0) } ?? .null])
    }
}
