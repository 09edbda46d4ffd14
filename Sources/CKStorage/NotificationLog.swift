import Foundation
import CKFiles
import CKModel

/// `notifications/<userRecordName>.jsonl`: one user's notifications, append-only. A line is either
/// `{"op":"notify","notification":{…}}` or `{"op":"read","notificationIDs":[…],"at":ms}`; marking read
/// appends, so no acknowledged notification is ever rewritten.
package enum NotificationLog {
    /// One line of the log.
    package enum Entry {
        case notify(SubscriptionNotification)
        case read([String], at: Int64)

        package var json: JSON {
            switch self {
            case .notify(let n): return .object(["op": .string("notify"), "notification": n.json()])
            case .read(let ids, let at): return .object(["op": .string("read"), "notificationIDs": .array(ids.map { .string($0) }), "at": .int(at)])
            }
        }

        package init(json: JSON, path: String) throws(CKError) {
            switch json["op"]?.stringValue {
            case "notify":
                guard let n = json["notification"] else { throw CKError.invalid("\(path): missing \"notification\"") }
                self = .notify(try SubscriptionNotification(json: n, path: path))
            case "read":
                guard let ids = json["notificationIDs"]?.arrayValue else { throw CKError.invalid("\(path): missing \"notificationIDs\"") }
                var out: [String] = []
                for id in ids {
                    guard let s = id.stringValue else { throw CKError.invalid("\(path): notificationIDs must be strings") }
                    out.append(s)
                }
                self = .read(out, at: json["at"]?.int64Value ?? 0)
            default:
                throw CKError.invalid("\(path): \"op\" must be \"notify\" or \"read\"")
            }
        }
    }

    /// A log's lines; a bad whole line is an error naming path:line, a torn last line only a warning.
    package struct Contents {
        package var entries: [Entry] = []
        /// Line numbers (1-based) of bad whole lines; only `ck doctor` collects them instead of failing.
        package var badLines: [Int] = []
        package var tornBytes = 0
        package var validLength = 0
    }

    package static func read(_ path: String, tolerant: Bool = false) throws(CKError) -> Contents {
        var c = Contents()
        guard let bytes = try FileIO.read(path) else { return c }
        try JSONLines.forEach(bytes) { (line) throws(CKError) in
            if line.isBlank {
                if line.terminated { c.validLength = line.next }
                return
            }
            do throws(CKError) {
                let json: JSON
                do throws(JSONParseError) { json = try JSON.parse(utf8: line.bytes) } catch { throw CKError.invalid("invalid JSON: \(error.message)") }
                c.entries.append(try Entry(json: json, path: "this line"))
                c.validLength = line.next
            } catch {
                if !line.terminated { c.tornBytes = line.bytes.count; return }
                if tolerant { c.badLines.append(line.number); c.validLength = line.next; return }
                throw CKError.corrupt(path: path, line: line.number, error.reason)
            }
        }
        return c
    }

    /// The log's size, modification time and inode (nil when it does not exist): what changes when a line is added.
    package static func stamp(_ path: String) -> [Int64]? {
        guard let st = FileIO.status(path) else { return nil }
        return [Int64(st.st_size), Int64(st.st_mtim.tv_sec), Int64(st.st_mtim.tv_nsec), Int64(st.st_ino)]
    }

    /// Appends whole lines and fsyncs them; a torn tail left by a crash is cut first, a missing final newline added.
    static func append(_ path: String, _ entries: [Entry]) throws(CKError) {
        guard !entries.isEmpty else { return }
        try FileIO.makeDirectory(PathName.parent(path))
        var prefix: [UInt8] = []
        if let last = try FileIO.readTail(path, count: 1), let byte = last.first, byte != 0x0A {
            let c = try read(path)
            if c.tornBytes > 0 { try FileIO.truncate(path, to: c.validLength) } else { prefix = [0x0A] }
        }
        try FileIO.append(path, prefix + lines(entries))
    }

    /// The log's whole content with `entries` appended (a torn tail dropped, a missing final newline added), for
    /// an operation that replaces the log as one of several files.
    package static func appending(_ path: String, _ entries: [Entry]) throws(CKError) -> [UInt8] {
        guard var bytes = try FileIO.read(path) else { return lines(entries) }
        if let last = bytes.last, last != 0x0A {
            let c = try read(path, tolerant: true)
            if c.tornBytes > 0 { bytes.removeLast(bytes.count - c.validLength) } else { bytes.append(0x0A) }
        }
        return bytes + lines(entries)
    }

    private static func lines(_ entries: [Entry]) -> [UInt8] {
        var bytes: [UInt8] = []
        for e in entries { bytes += Array((e.json.serialized() + "\n").utf8) }
        return bytes
    }
}
