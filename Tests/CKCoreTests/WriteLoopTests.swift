import Foundation
import Testing
import CKCore
@testable import CKModel
@testable import CKFiles
@testable import CKSQLite

/// `FileIO.writeAll` must write every byte once, in order, however the kernel splits the writes — past 2 GiB
/// too (an earlier loop restarted at 0x7FFFF000, the most Linux writes in one call).
@Suite struct WriteLoopTests {
    /// Bytes that differ at every position modulo a prime, so a piece written twice or skipped shows.
    static func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) } }

    @Test func smallPiecesAddUpToTheWholeBuffer() throws {
        let dir = NSTemporaryDirectory() + "ck-writeloop-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bytes = WriteLoopTests.pattern(1 << 20 + 7)
        let path = dir + "/out"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0)
        var failure: CKError? = nil
        bytes.withUnsafeBytes { buf in
            do throws(CKError) { try FileIO.writeAll(fd, buf, path: path, chunk: 4093) } catch { failure = error }
        }
        close(fd)
        #expect(failure == nil)
        #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == bytes)
    }

    /// 2 GiB + 3 MiB + 5 bytes of an untouched mapping (the zero page: no memory used) with markers around
    /// 0x7FFFF000 and 2 GiB, written with the real 1 GiB pieces into a pipe; the reader compares every byte with
    /// the buffer (memcmp), so nothing reaches the disk.
    @Test func moreThanTwoGiBIsWrittenWholeAndInOrder() throws {
        let count = (1 << 31) + (3 << 20) + 5
        let map = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        let base = try #require(map == MAP_FAILED ? nil : map)
        defer { munmap(base, count) }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        for marker in [0, 0x7FFF_EFFF, 0x7FFF_F000, 0x7FFF_F001, 1 << 30, 1 << 31, count - 1] {
            bytes[marker] = UInt8(truncatingIfNeeded: marker % 251) | 1
        }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let reader = PipeComparer(fd: fds[0], expected: UInt(bitPattern: base), count: count)
        let thread = Thread { reader.run() }
        thread.start()
        try FileIO.writeAll(fds[1], UnsafeRawBufferPointer(start: base, count: count), path: "pipe")
        close(fds[1])
        reader.done.wait()
        close(fds[0])
        #expect(reader.received == count)
        #expect(reader.firstDifference == nil)
    }
}

/// Reads a pipe to its end, comparing what arrives with the buffer it should equal.
private final class PipeComparer: @unchecked Sendable {
    let fd: Int32, expected: UInt, count: Int
    var received = 0
    var firstDifference: Int? = nil
    let done = DispatchSemaphore(value: 0)

    init(fd: Int32, expected: UInt, count: Int) { (self.fd, self.expected, self.count) = (fd, expected, count) }

    func run() {
        defer { done.signal() }
        let size = 1 << 20
        guard let buf = malloc(size) else { return }
        defer { free(buf) }
        let source = UnsafeRawPointer(bitPattern: expected)
        while true {
            let n = read(fd, buf, size)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            if firstDifference == nil {
                if received + n > count { firstDifference = count; return }
                if let source, memcmp(buf, source + received, n) != 0 { firstDifference = received }
            }
            received += n
        }
    }
}
