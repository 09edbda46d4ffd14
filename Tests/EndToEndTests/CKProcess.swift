import Foundation

/// Runs the built `ck` binary as a user would, in a temporary working directory and store.
final class Sandbox {
    let dir: String
    var environment: [String: String]

    /// The `ck` executable built next to the test bundle.
    static let binary: String = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [beside, beside.deletingLastPathComponent()] {
            let p = candidate.appendingPathComponent("ck").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/ck").path
    }()

    init(store: Bool = true) throws {
        dir = NSTemporaryDirectory() + "ck-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
        environment = ["HOME": dir + "/home", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        if store { environment["CK_DATA_DIR"] = dir + "/store" }
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a program (default: ck) with arguments, optional stdin, in `cwd` (default: the sandbox).
    @discardableResult
    func run(_ args: [String], stdin: String? = nil, cwd: String? = nil, program: String = Sandbox.binary,
             env: [String: String] = [:]) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        p.environment = environment.merging(env) { $1 }
        p.currentDirectoryURL = URL(fileURLWithPath: cwd ?? dir)
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
        try inp.fileHandleForWriting.close()
        let (outData, errData) = Sandbox.finish(p, out: out, err: err)
        return Result(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Starts ck in the sandbox, stdin from /dev/null, without waiting: for a test that signals or bounds it, then
    /// collects its output with `Sandbox.finish`.
    func launch(_ args: [String]) throws -> (process: Process, out: Pipe, err: Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Sandbox.binary)
        p.arguments = args
        p.environment = environment
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return (p, out, err)
    }

    /// Reads a started process's stdout and stderr concurrently (so a large output cannot block it) and waits for it.
    static func finish(_ p: Process, out: Pipe, err: Pipe) -> (out: Data, err: Data) {
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return (outData, errData)
    }

    @discardableResult
    func ck(_ args: String..., stdin: String? = nil) throws -> Result { try run(args, stdin: stdin) }

    func files(under path: String) -> [String] {
        (FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? []).sorted()
    }

    func write(_ text: String, to name: String) throws {
        try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
    }
}
