import CKModel

/// One control-plane route of a table: the methods it answers and what performs it (each method's work is the
/// handler's to choose). The console's routes live in such a table (`ControlPlane.consoleRoutes`).
struct ControlPlaneRoute: Sendable {
    /// The methods the route answers, as the METHOD_NOT_ALLOWED answer lists them.
    let methods: [String]
    /// The route performed: a JSON answer, or a CKError in CloudKit's shape.
    let handle: @Sendable (HTTPRequest, CloudKitServer) throws(CKError) -> JSON
}
