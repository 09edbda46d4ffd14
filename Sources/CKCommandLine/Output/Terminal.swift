import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a command's input comes from and its output goes; tests substitute their own.
public struct Terminal: @unchecked Sendable {
    public var writeOut: (String) -> Void
    /// Raw bytes to stdout (asset contents); tests that give only `writeOut` get them decoded as UTF-8.
    public var writeOutBytes: ([UInt8]) -> Void
    public var writeErr: (String) -> Void
    public var readStdin: () -> [UInt8]
    /// Standard input's descriptor when it is the process's own: read under a limit there, never whole.
    public var stdinDescriptor: Int32? = nil
    public var readLine: () -> String?
    public var stdoutIsTTY: Bool
    public var stderrIsTTY: Bool
    public var stdinIsTTY: Bool
    public var environment: [String: String]
    public var workingDirectory: String
    /// The terminal's size in columns and rows when stdout is one (`COLUMNS` and `LINES` override it).
    public var columns: Int?
    public var rows: Int?
    /// Stdout is `/dev/null`: what is written there reaches nobody, so output need not be rendered.
    public var stdoutDiscarded = false

    public init(writeOut: @escaping (String) -> Void, writeErr: @escaping (String) -> Void,
                readStdin: @escaping () -> [UInt8], readLine: @escaping () -> String? = { nil },
                stdoutIsTTY: Bool = false, stderrIsTTY: Bool = false, stdinIsTTY: Bool = false,
                environment: [String: String] = [:], workingDirectory: String = FileManager.default.currentDirectoryPath) {
        self.writeOut = writeOut
        self.writeOutBytes = { writeOut(String(decoding: $0, as: UTF8.self)) }
        self.writeErr = writeErr
        self.readStdin = readStdin
        self.readLine = readLine
        self.stdoutIsTTY = stdoutIsTTY
        self.stderrIsTTY = stderrIsTTY
        self.stdinIsTTY = stdinIsTTY
        self.environment = environment
        self.workingDirectory = workingDirectory
    }

    /// The process's own standard streams and environment.
    public static var process: Terminal {
        var t = Terminal(
            writeOut: { s in StreamWriter.stdout.write(s) },
            writeErr: { s in StreamWriter.stdout.flush(); StreamWriter.stderr.write(s); StreamWriter.stderr.flush() },
            readStdin: { readAll(fd: 0) },
            readLine: { Swift.readLine() },
            stdoutIsTTY: isatty(1) == 1, stderrIsTTY: isatty(2) == 1, stdinIsTTY: isatty(0) == 1,
            environment: processEnvironment(),
            workingDirectory: currentDirectory())
        t.writeOutBytes = { StreamWriter.stdout.write(bytes: $0) }
        t.stdinDescriptor = 0
        t.stdoutDiscarded = !t.stdoutIsTTY && isDevNull(fd: 1)
        var size = winsize()
        if t.stdoutIsTTY, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            t.columns = Int(size.ws_col)
            t.rows = Int(size.ws_row)
        }
        return t
    }
}

extension Terminal {
    /// Width to fit tables to: `COLUMNS`, else the terminal's; nil (no limit) when neither is known.
    var width: Int? { environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? columns }
    /// Rows of a page: `LINES`, else the terminal's, else 24.
    var height: Int { environment["LINES"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? rows ?? 24 }
}

/// The process environment, read from `environ` directly: ProcessInfo's copy costs a third of `ck --version`
/// (first-use generic metadata and conformance lookups in a large static binary). The first of two equal names wins,
/// as getenv(3) answers.
/// Whether `fd` is the null device: a character device with `/dev/null`'s device number.
func isDevNull(fd: Int32) -> Bool {
    var out = stat(), null = stat()
    guard fstat(fd, &out) == 0, (out.st_mode & S_IFMT) == S_IFCHR, stat("/dev/null", &null) == 0 else { return false }
    return (null.st_mode & S_IFMT) == S_IFCHR && out.st_rdev == null.st_rdev
}

func processEnvironment() -> [String: String] {
    var env: [String: String] = [:]
    var p = environ
    while let entry = p.pointee {
        let length = strlen(entry)
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(entry).assumingMemoryBound(to: UInt8.self), count: length)
        if let eq = bytes.firstIndex(of: UInt8(ascii: "=")), eq > 0 {
            let key = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<eq]), as: UTF8.self)
            if env[key] == nil {
                env[key] = String(decoding: UnsafeBufferPointer(rebasing: bytes[(eq + 1)...]), as: UTF8.self)
            }
        }
        p += 1
    }
    return env
}

/// The working directory from getcwd(3), without FileManager (whose set-up is a start-up cost of every command).
func currentDirectory() -> String {
    var size = 4096
    while size <= 1 << 20 {
        var buffer = [CChar](repeating: 0, count: size)
        if getcwd(&buffer, size) != nil {
            return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        if errno != ERANGE { break }
        size *= 2
    }
    return FileManager.default.currentDirectoryPath
}

/// Reads a file descriptor to its end straight into bytes (no Data copy: batch inputs can be large).
func readAll(fd: Int32) -> [UInt8] {
    var out = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { b -> Int in
            guard let base = b.baseAddress else { return 0 }
            return Glibc.read(fd, base, b.count)
        }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        out.append(contentsOf: chunk[0..<n])
    }
    return out
}

/// A buffered writer on a file descriptor (stdout output can be large).
final class StreamWriter: @unchecked Sendable {
    static let stdout = StreamWriter(fd: 1)
    static let stderr = StreamWriter(fd: 2)

    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Why a write failed (a full disk, a closed descriptor); once set, the rest is dropped and ck exits non-zero.
    private(set) var failure: String? = nil

    init(fd: Int32) { self.fd = fd }

    func write(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard failure == nil else { return }
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { buf -> Int in
                guard let base = buf.baseAddress else { return 0 }
                return Glibc.write(fd, base + done, min(buf.count - done, 1 << 30))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                failure = n < 0 ? String(cString: strerror(errno)) : "no progress"
                return
            }
            done += n
        }
    }
}
