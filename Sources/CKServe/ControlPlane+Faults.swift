import CKModel
import CKServer

/// `/_ck/faults`: the environment's fault rules, as `ck fault` keeps them (faults.json); rules added here fire on
/// Web Services requests and command-line operations alike, since both pass the same pipeline.
extension ControlPlane {
    /// `GET /_ck/faults` → `{container, environment, faults: [rule]}` (each rule as `ck fault list -o json` prints it).
    static func listFaults(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let (container, environment) = try target(request, body: [:], server: server)
        let rules = try container.faults(environment: environment)
        return .object(["container": .string(container.identifier), "environment": .string(environment.rawValue),
                        "faults": .array(rules.map(\.json))])
    }

    /// `POST /_ck/faults` with a rule (`FaultRule.init(request:)`) → the rule as stored, with its id.
    static func addFault(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try self.body(request)
        let (container, environment) = try target(request, body: body, server: server)
        let rule = try FaultRule(request: body)
        return try container.addFault(rule, environment: environment).json
    }

    /// `DELETE /_ck/faults` (every rule) or `DELETE /_ck/faults/<id>` → `{cleared: [id]}`.
    static func clearFaults(_ id: String?, _ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let (container, environment) = try target(request, body: try body(request), server: server)
        let removed = try container.clearFaults(id, environment: environment)
        return .object(["cleared": .array(removed.map { .string($0) })])
    }
}
