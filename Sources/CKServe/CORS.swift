/// CORS for browser clients: preflight answers and the headers every response carries.
enum CORS {
    /// The 204 answer to an OPTIONS preflight.
    static func preflight(_ request: HTTPRequest) -> HTTPResponse { HTTPResponse(status: 204) }

    /// `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers` for a response to this request.
    static func headers(for request: HTTPRequest) -> [(name: String, value: String)] { [] }
}
