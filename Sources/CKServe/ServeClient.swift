import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CKModel

/// A tiny blocking HTTP/1.1 client for ck's own routes (`ck serve log` reads `/_ck/requests` with it): one GET per
/// connection, `Connection: close`, a Content-Length, chunked or until-close body.
public enum ServeClient {
    /// A reply: status and body.
    public struct Reply: Sendable {
        public var status: Int
        public var body: [UInt8]
    }

    /// Why a request got no reply.
    public enum Failure: Error, Sendable {
        /// Nothing listens there (connection refused, or the host can't be reached).
        case unreachable(String)
        /// The connection broke or the reply was not HTTP.
        case broken(String)
    }

    /// `http://HOST:PORT` split into host and port; nil for anything else.
    public static func hostAndPort(_ url: String) -> (host: String, port: UInt16)? {
        guard url.hasPrefix("http://") else { return nil }
        var rest = url.dropFirst("http://".count)
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        var host: Substring
        var portText: Substring
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            portText = after.hasPrefix(":") ? after.dropFirst() : "80"
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
            portText = "80"
        }
        if host.isEmpty { host = "127.0.0.1" }
        guard let port = UInt16(portText), port > 0 else { return nil }
        return (String(host), port)
    }

    /// GETs `target` (path and query) from the server at `url`.
    public static func get(_ url: String, _ target: String, timeout: Int = 10) throws(Failure) -> Reply {
        guard let (host, port) = hostAndPort(url) else { throw .unreachable("\(url) is not an http://HOST:PORT URL") }
        let fd = try connect(host: host, port: port, timeout: timeout, url: url)
        defer { close(fd) }
        let head = "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
        var bytes = Array(head.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw .broken("cannot send to \(url): \(String(cString: strerror(errno)))") }
            bytes = bytes.dropFirst(n)
        }
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .broken("no reply from \(url): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            data.append(contentsOf: buf[0..<n])
        }
        return try parse(data, url: url)
    }

    private static func connect(host: String, port: UInt16, timeout: Int, url: String) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>? = nil
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw .unreachable("cannot resolve \(host) in \(url)")
        }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let a = next {
            next = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
            if fd < 0 { continue }
            var tv = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return fd }
            reason = String(cString: strerror(errno))
            close(fd)
        }
        throw .unreachable("cannot connect to \(url): \(reason)")
    }

    /// Splits a whole response into status and body.
    static func parse(_ data: [UInt8], url: String) throws(Failure) -> Reply {
        let sep: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = find(sep, in: data, from: 0) else { throw .broken("\(url) closed the connection before a whole reply") }
        let head = String(decoding: data[..<headEnd], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/"), let status = Int(statusParts[1]) else {
            throw .broken("\(url) did not answer HTTP")
        }
        var length: Int? = nil
        var chunked = false
        for line in head.dropFirst() {
            guard let c = line.firstIndex(of: ":") else { continue }
            let name = line[..<c].lowercased()
            let value = line[line.index(after: c)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" { length = Int(value) }
            if name == "transfer-encoding" && value.lowercased() == "chunked" { chunked = true }
        }
        var body = Array(data[(headEnd + 4)...])
        if chunked {
            var out: [UInt8] = []
            var i = 0
            while i < body.count {
                guard let lineEnd = find([13, 10], in: body, from: i),
                      let size = Int(String(decoding: body[i..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) else {
                    throw .broken("\(url) sent a malformed chunk")
                }
                if size == 0 { break }
                out.append(contentsOf: body[(lineEnd + 2)..<min(body.count, lineEnd + 2 + size)])
                i = lineEnd + 2 + size + 2
            }
            body = out
        } else if let length {
            guard body.count >= length else { throw .broken("\(url) closed the connection in the middle of a reply") }
            body = Array(body.prefix(length))
        }
        return Reply(status: status, body: body)
    }

    private static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard hay.count >= needle.count, from <= hay.count - needle.count else { return nil }
        for i in from...(hay.count - needle.count) where hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle { return i }
        return nil
    }
}
