import Foundation
import Testing

/// Output never holds the store's lock: a batch's results wait, durable, until the lock is released, so a reader of
/// stdout that is slow or stopped can't hold up every other writer of the store.
@Suite struct OutputLockTests {
    @Test func aStoppedReaderOfABatchDoesNotHoldTheLock() throws {
        let s = try Sandbox()
        // Far more output than a pipe holds (64 KiB), so a writer that prints under the lock blocks holding it.
        let n = 3000
        let padding = String(repeating: "x", count: 60)
        let batch = (0..<n).map { #"{"recordName":"n\#($0)","recordType":"Note","fields":{"title":{"value":"\#(padding) \#($0)"}}}"# }
            .joined(separator: "\n") + "\n"
        try s.write(batch, to: "batch.jsonl")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Sandbox.binary)
        p.arguments = ["record", "save", "--batch", s.dir + "/batch.jsonl", "-o", "plain"]
        p.environment = s.environment
        p.currentDirectoryURL = URL(fileURLWithPath: s.dir)
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Nobody reads stdout yet. The other command must get the lock within a bounded time: once the batch is
        // durable, its writer waits on the pipe without the lock.
        let other = Process()
        other.executableURL = URL(fileURLWithPath: Sandbox.binary)
        other.arguments = ["record", "save", "Note", "--name", "other", "title=meanwhile"]
        other.environment = s.environment
        other.currentDirectoryURL = URL(fileURLWithPath: s.dir)
        other.standardOutput = FileHandle.nullDevice
        other.standardError = FileHandle.nullDevice
        // Started once the batch has begun writing, so the two really meet at the lock.
        let log = s.dir + "/store/containers/iCloud.ck.default/development/private"
        let deadline = Date().addingTimeInterval(60)
        while !s.files(under: log).contains(where: { $0.hasSuffix(".jsonl") }) && Date() < deadline && p.isRunning { usleep(20_000) }
        try other.run()
        let otherDeadline = Date().addingTimeInterval(60)
        while other.isRunning && Date() < otherDeadline { usleep(20_000) }
        let finished = !other.isRunning
        if !finished { other.terminate() }
        // Now read the batch's output: every saved record is printed, after all.
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        _ = err.fileHandleForReading.readDataToEndOfFile()
        #expect(finished, "a second writer waited while the batch's stdout was not read: the lock was held by output")
        if finished { other.waitUntilExit(); #expect(other.terminationStatus == 0) }
        #expect(p.terminationStatus == 0)
        let rows = String(decoding: printed, as: UTF8.self).split(separator: "\n")
        #expect(rows.count == n, "\(rows.count) rows printed")
        #expect(rows.first?.hasPrefix("n0\t") == true && rows.last?.hasPrefix("n\(n - 1)\t") == true)
    }
}
