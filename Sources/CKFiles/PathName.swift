import CKModel

/// Path names taken apart as NSString does for the absolute paths ck builds, without bridging to NSString
/// (each bridge and `substring(with:)` cost tens of thousands of instructions on every command).
package enum PathName {
    /// The path without its last component: `/a/b/c` → `/a/b`, `/a/b/` → `/a`, `/a` → `/`, `a` → ``, `/` → `/`.
    package static func parent(_ path: String) -> String {
        let bytes = Array(path.utf8)
        var end = bytes.count
        while end > 1, bytes[end - 1] == slash { end -= 1 }
        guard let cut = bytes[..<end].lastIndex(of: slash) else { return "" }
        var head = cut
        while head > 0, bytes[head - 1] == slash { head -= 1 }
        if head == 0 { return bytes.first == slash ? "/" : "" }
        return String(decoding: bytes[..<head], as: UTF8.self)
    }

    /// The last component: `/a/b/c` → `c`, `/a/b/` → `b`, `/` → `/`, `` → ``.
    package static func last(_ path: String) -> String {
        let bytes = Array(path.utf8)
        var end = bytes.count
        while end > 1, bytes[end - 1] == slash { end -= 1 }
        if end == 1, bytes[0] == slash { return "/" }
        let start = bytes[..<end].lastIndex(of: slash).map { $0 + 1 } ?? 0
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static let slash = UInt8(ascii: "/")
}
