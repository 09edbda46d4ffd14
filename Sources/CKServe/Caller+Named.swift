import CKModel
import CKServer

extension Caller {
    /// The user a request names (the `X-CK-User` header, a control-plane action's `user`), checked as `--as` checks
    /// a name: a near miss of a user `container` lists is refused. A refusal's reason starts with `label`.
    static func named(_ name: String, in container: CKContainer?, label: String) throws(CKError) -> Caller {
        do throws(CKError) {
            let caller = try Caller.user(name)
            _ = try container?.resolveUser(name)
            return caller
        } catch {
            var e = error
            e.reason = label + ": " + e.reason
            throw e
        }
    }
}
