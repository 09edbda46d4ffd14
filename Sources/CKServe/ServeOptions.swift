/// How `ck serve` listens and whom it lets in.
public struct ServeOptions: Sendable {
    /// The address to bind: loopback unless told otherwise.
    public var host = "127.0.0.1"
    /// The port; 0 asks the system for a free one.
    public var port = 8090
    /// `--no-auth`: every request acts as this user, whatever tokens it carries (quick local work only).
    public var noAuthUser: String?
    /// Web auth tokens are good for one round trip only (each response carries the next one).
    public var singleUseTokens = false
    /// How far an S2S request's ISO 8601 date may be from the server's clock, in seconds.
    public var signatureSkew: Double = 600
    /// How long a web-courier long-poll is held before it answers with no notification, in seconds.
    public var courierHold: Double = 30
    /// How many requests the request log keeps.
    public var requestLogSize = 1000
    /// Seconds a connection may stay idle or a slow client take to send a request.
    public var timeout: Int32 = 60

    public init() {}

    /// Whether `host` is a loopback address (anything else is warned about: anyone on the network can read the store).
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
