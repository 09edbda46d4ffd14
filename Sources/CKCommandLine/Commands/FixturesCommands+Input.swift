import CKCore
import CKFiles
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension FixturesCommands {
    /// Opens a fixtures file argument ('-' for stdin) as a document read as the import goes; returns it and the
    /// label errors name it by. A regular file is read in place (again for each pass of the import); stdin, a pipe
    /// or a device is first copied, under the document limit, to a nameless file beside the store.
    static func readDocument(_ inv: Invocation, _ file: String) throws -> (FixtureDocument, String) {
        let label = file == "-" ? "<stdin>" : file
        let what = "the fixtures document (JSON)"
        if file == "-" {
            if inv.terminal.stdinIsTTY { inv.note("reading \(what) from the terminal; end it with Ctrl-D at the start of a line (Ctrl-C cancels)") }
            guard let fd = inv.terminal.stdinDescriptor else {
                // A test's stdin, already in memory.
                return (try FixtureDocument.read(bytes: inv.terminal.readStdin(), input: label), label)
            }
            return (try FixtureDocument.read(fd: try spool(fd, input: label, near: inv.storeLocation.path), input: label), label)
        }
        let full = file.hasPrefix("/") ? file : inv.terminal.workingDirectory + "/" + file
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: full, isDirectory: &isDir), isDir.boolValue {
            throw CKError(.invalidArguments, "'\(file)' is a directory, not a file")
        }
        let fd = open(full, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CKError(.invalidArguments, "cannot read file '\(file)': \(String(cString: strerror(errno)))") }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG { return (try FixtureDocument.read(fd: fd, input: label), label) }
        defer { close(fd) }
        return (try FixtureDocument.read(fd: try spool(fd, input: label, near: inv.storeLocation.path), input: label), label)
    }

    /// Copies what `fd` gives to a file that has no name (unlinked at once, so nothing is left behind whatever
    /// happens), in the store's directory (or beside it when there is none yet), and returns that file open. More
    /// than the document limit is refused as soon as it is seen.
    static func spool(_ fd: Int32, input: String, near store: String) throws(CKError) -> Int32 {
        var isDir: ObjCBool = false
        let dir = FileManager.default.fileExists(atPath: store, isDirectory: &isDir) && isDir.boolValue ? store : PathName.parent(store)
        // Beside the store when its directory can take a file, else in /tmp (a --data-dir whose parent is missing).
        var made: (name: String, fd: Int32)? = nil
        var at = dir
        for candidate in [dir, "/tmp"] {
            at = candidate
            if let parent = try? ParentDirectory.open(candidate + "/import-spool"), let m = try? FileIO.createTemporary(in: parent) {
                made = m
                unlinkat(parent.fd, m.name, 0)
                break
            }
        }
        guard let (_, out) = made else {
            throw CKError.internalError("cannot make a file in \(dir) or /tmp to copy \(input) to: \(FileIO.errnoText())")
        }
        let back = open("/proc/self/fd/\(out)", O_RDONLY | O_CLOEXEC)
        guard back >= 0 else {
            close(out)
            throw CKError.internalError("cannot reopen the copy of \(input): \(FileIO.errnoText())")
        }
        defer { close(out) }
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        do throws(CKError) {
            while true {
                let n = chunk.withUnsafeMutableBytes { b in Glibc.read(fd, b.baseAddress, b.count) }
                if n < 0 && errno == EINTR { continue }
                if n < 0 { throw CKError(.invalidArguments, "cannot read \(input): \(FileIO.errnoText())") }
                if n == 0 { return back }
                total += n
                if total > InputLimit.document { throw BoundedRead.tooLarge(input, limit: InputLimit.document, limitName: FixtureDocument.limitName) }
                try FileIO.writeAll(out, Array(chunk[0..<n]), path: at)
            }
        } catch {
            close(back)
            throw error
        }
    }
}
