import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CKModel

/// A `ck serve --port 0` started on a sandbox's store, and an HTTP/1.1 client that speaks to it over loopback.
final class ServeProcess {
    let process = Process()
    let port: Int
    private let stderrPipe = Pipe()
    /// The line `ck serve` printed on stdout.
    let banner: String

    /// Starts `ck serve --port 0 ARGS` with the sandbox's environment and waits for its "listening on" line;
    /// `wrapper` (e.g. strace and its options) runs ck under another program.
    init(_ sandbox: Sandbox, arguments: [String] = [], env: [String: String] = [:], wrapper: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: wrapper.first ?? Sandbox.binary)
        process.arguments = Array(wrapper.dropFirst()) + (wrapper.isEmpty ? [] : [Sandbox.binary]) + ["serve", "--port", "0"] + arguments
        process.environment = sandbox.environment.merging(env) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: sandbox.dir)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = stderrPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var line = Data()
        let handle = out.fileHandleForReading
        while true {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        banner = String(decoding: line, as: UTF8.self)
        guard let colon = banner.lastIndex(of: ":"), let p = Int(banner[banner.index(after: colon)...]),
              banner.hasPrefix("ck serve: listening on http://") else {
            process.terminate()
            let err = String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw ServeError("ck serve printed no listening line: '\(banner)'; stderr: \(err)")
        }
        port = p
        // Keep draining stdout so the server never blocks on a full pipe.
        DispatchQueue.global().async { _ = handle.readDataToEndOfFile() }
    }

    deinit { if process.isRunning { process.terminate(); process.waitUntilExit() } }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Sends SIGTERM (or another signal), waits, and returns the exit status and what the server wrote on stderr.
    @discardableResult
    func stop(signal: Int32 = SIGTERM) -> (status: Int32, stderr: String) {
        kill(process.processIdentifier, signal)
        let err = stderrPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: err, as: UTF8.self))
    }

    /// Sends `signal` and waits at most `seconds` for the server to end: its exit status, or nil when it was still
    /// running (it is then killed, so a test of a lost signal fails instead of hanging).
    func stop(signal: Int32, within seconds: Double) -> Int32? {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        let ended = !process.isRunning
        if !ended { kill(process.processIdentifier, SIGKILL) }
        _ = stderrPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ended ? process.terminationStatus : nil
    }

    /// One request on a fresh connection.
    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
                 timeout: Double = 30) throws -> HTTPClientReply {
        try HTTPClient.request(port: port, method, target, headers: headers, body: body, timeout: timeout)
    }

    /// A POST of a JSON text (Content-Type: application/json unless `headers` says otherwise).
    func post(_ target: String, json: String, headers: [(String, String)] = []) throws -> HTTPClientReply {
        let h = headers.contains { $0.0.lowercased() == "content-type" } ? headers : headers + [("Content-Type", "application/json")]
        return try request("POST", target, headers: h, body: Array(json.utf8))
    }

    func get(_ target: String, headers: [(String, String)] = []) throws -> HTTPClientReply {
        try request("GET", target, headers: headers)
    }
}

struct ServeError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// An HTTP response as the test client read it.
struct HTTPClientReply {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON (`.null` when it is not JSON).
    var json: JSON { (try? JSON.parse(utf8: body)) ?? .null }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// A minimal HTTP/1.1 client over a loopback socket: one request per connection, `Connection: close`,
/// Content-Length or chunked replies.
enum HTTPClient {
    /// A connected socket with send and receive timeouts; `receiveBuffer` shrinks its receive buffer (set before
    /// connecting, so the window the server sees is small: a reader that falls behind).
    static func connect(port: Int, timeout: Double, receiveBuffer: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServeError("socket: \(errno)") }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else { close(fd); throw ServeError("connect to 127.0.0.1:\(port): errno \(errno)") }
        return fd
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ServeError("send: errno \(errno)") }
            off += n
        }
    }

    static func request(port: Int, _ method: String, _ target: String, headers: [(String, String)] = [],
                        body: [UInt8]? = nil, timeout: Double = 30) throws -> HTTPClientReply {
        let fd = try connect(port: port, timeout: timeout)
        defer { close(fd) }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try sendAll(fd, Array(head.utf8) + (body ?? []))
        return try readReply(fd, method: method)
    }

    /// Reads a whole response (until the server closes, or the declared length).
    static func readReply(_ fd: Int32, method: String = "GET") throws -> HTTPClientReply {
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        func fill() throws -> Bool {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { throw ServeError("recv: errno \(errno) (timed out?)") }
            if n == 0 { return false }
            data.append(contentsOf: buf[0..<n])
            return true
        }
        let sep: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int? = nil
        while headEnd == nil {
            guard try fill() else { throw ServeError("connection closed before the response head") }
            headEnd = find(sep, in: data)
        }
        guard let headEnd else { throw ServeError("no head") }
        let head = String(decoding: data[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw ServeError("bad status line \(head[0])") }
        var headers: [(String, String)] = []
        for line in head.dropFirst() {
            guard let c = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<c]), line[line.index(after: c)...].trimmingCharacters(in: .whitespaces)))
        }
        let lookup = { (n: String) in headers.first { $0.0.lowercased() == n }?.1 }
        var body = Array(data[(headEnd + 4)...])
        if method == "HEAD" || status == 204 || status == 304 {
            body = []
        } else if let len = lookup("content-length").flatMap(Int.init) {
            while body.count < len {
                let before = data.count
                guard try fill() else { break }
                body.append(contentsOf: data[before...])
            }
        } else if lookup("transfer-encoding")?.lowercased() == "chunked" {
            while try fill() {}
            body = try dechunk(Array(data[(headEnd + 4)...]))
        } else {
            while try fill() {}
            body = Array(data[(headEnd + 4)...])
        }
        return HTTPClientReply(status: status, headers: headers, body: body)
    }

    static func dechunk(_ raw: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < raw.count {
            guard let lineEnd = find([13, 10], in: raw, from: i),
                  let size = Int(String(decoding: raw[i..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16) else {
                throw ServeError("bad chunk")
            }
            if size == 0 { break }
            out.append(contentsOf: raw[(lineEnd + 2)..<min(raw.count, lineEnd + 2 + size)])
            i = lineEnd + 2 + size + 2
        }
        return out
    }

    static func find(_ needle: [UInt8], in hay: [UInt8], from: Int = 0) -> Int? {
        guard hay.count >= needle.count else { return nil }
        var i = from
        while i + needle.count <= hay.count {
            if hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}
