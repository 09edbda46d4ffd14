import Foundation

/// Signs S2S messages with the openssl command line, as a developer's client would.
struct OpenSSLKey {
    let dir: String
    var privatePath: String { dir + "/k.pem" }
    var publicPath: String { dir + "/pub.pem" }

    init(in dir: String, name: String = "key") throws {
        self.dir = dir + "/" + name
        try FileManager.default.createDirectory(atPath: self.dir, withIntermediateDirectories: true)
        try OpenSSLKey.run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", privatePath])
        try OpenSSLKey.run(["ec", "-in", privatePath, "-pubout", "-out", publicPath])
    }

    /// base64 of the DER signature of `message` (`openssl dgst -sha256 -sign`).
    func sign(_ message: String) throws -> String {
        let msg = dir + "/msg"
        try Data(message.utf8).write(to: URL(fileURLWithPath: msg))
        let sig = try OpenSSLKey.run(["dgst", "-sha256", "-sign", privatePath, msg])
        return sig.base64EncodedString()
    }

    @discardableResult
    static func run(_ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw ServeError("openssl \(args.joined(separator: " ")) failed") }
        return data
    }

    /// The ISO 8601 date S2S requests carry, `seconds` from now.
    static func date(offset seconds: Double = 0) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date().addingTimeInterval(seconds))
    }

    static func sha256Base64(_ body: [UInt8]) throws -> String {
        let dir = NSTemporaryDirectory() + "ck-h4-\(UUID().uuidString)"
        try Data(body).write(to: URL(fileURLWithPath: dir))
        defer { try? FileManager.default.removeItem(atPath: dir) }
        return try run(["dgst", "-sha256", "-binary", dir]).base64EncodedString()
    }
}
