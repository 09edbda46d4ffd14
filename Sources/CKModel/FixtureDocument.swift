import Glibc

/// A fixtures document to import, read as the import needs it: its small members whole, its records and assets
/// one at a time and as often as the import asks (a file is read again each time, through `JSONStreamReader`), so
/// a document far larger than memory imports with memory that stays flat.
public final class FixtureDocument {
    /// The members other than "records" and "assets", whole.
    public let members: [String: JSON]
    /// Whether the document is a JSON object (a file's always is: anything else is refused when it is read).
    public let isObject: Bool
    private let backing: Backing

    private enum Backing {
        case json(records: [JSON], assets: [String: JSON])
        /// Where the records array's `[` and the assets object's `{` are, when the document has them; the file's
        /// size and change time, so a file changed between two reads is noticed.
        case file(fd: Int32, input: String, records: Int?, assets: Int?, stamp: Stamp)
        case bytes([UInt8], input: String, records: Int?, assets: Int?)
    }

    private struct Stamp: Equatable {
        var size: Int
        var seconds: Int
        var nanoseconds: Int
    }

    /// A document already parsed (a test's, or `ck serve`'s reset body).
    public init(_ json: JSON) {
        isObject = json.objectValue != nil
        var m = json.objectValue ?? [:]
        let records = m.removeValue(forKey: "records")?.arrayValue ?? []
        let assets = m.removeValue(forKey: "assets")?.objectValue ?? [:]
        members = m
        backing = .json(records: records, assets: assets)
    }

    private init(members: [String: JSON], backing: Backing) {
        self.members = members
        isObject = true
        self.backing = backing
    }

    deinit {
        if case .file(let fd, _, _, _, _) = backing { close(fd) }
    }

    /// A top-level member other than "records" and "assets".
    public subscript(key: String) -> JSON? { members[key] }

    /// Reads the document in `fd` (which it then owns and closes), checking that all of it is JSON: the small
    /// members are kept, where the records and assets start is noted. A regular file over `InputLimit.document`
    /// is refused unread.
    public static func read(fd: Int32, input: String) throws(CKError) -> FixtureDocument {
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw CKError(.invalidArguments, "cannot read \(input): \(String(cString: strerror(errno)))")
        }
        let stamp = Stamp(size: Int(st.st_size), seconds: Int(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec))
        do throws(CKError) {
            if stamp.size > InputLimit.document { throw BoundedRead.tooLarge(input, limit: InputLimit.document, limitName: limitName) }
            let (members, records, assets) = try scan(JSONStreamReader(.file(fd: fd, from: 0), input: input, valueLimit: wholeMember))
            return FixtureDocument(members: members, backing: .file(fd: fd, input: input, records: records, assets: assets, stamp: stamp))
        } catch {
            close(fd)
            throw error
        }
    }

    /// The same for a document in memory (stdin given by a test).
    public static func read(bytes: [UInt8], input: String) throws(CKError) -> FixtureDocument {
        if bytes.count > InputLimit.document { throw BoundedRead.tooLarge(input, limit: InputLimit.document, limitName: limitName) }
        let (members, records, assets) = try scan(JSONStreamReader(.bytes(bytes), input: input, valueLimit: wholeMember))
        return FixtureDocument(members: members, backing: .bytes(bytes, input: input, records: records, assets: assets))
    }

    /// How the document limit is named in a refusal.
    public static let limitName = "the most ck reads for a fixtures document"
    /// A member other than records and assets (schema, users, zones, …) is read whole, under the document's limit.
    private static let wholeMember = (bytes: InputLimit.document, name: limitName)
    /// One record's element: a record's JSON and its database.
    private static let recordElement = (bytes: InputLimit.recordJSON, name: InputLimit.recordJSONName)
    /// One asset's base64 text: an asset's 50 MB take 4/3 as much, with room to spare.
    private static let assetElement = (bytes: 2 * Int(Asset.maxSize), name: "the most ck reads for one asset's bytes (an asset holds at most 50 MB)")

    /// The first read: every member checked, the small ones kept.
    private static func scan(_ reader: JSONStreamReader) throws(CKError) -> (members: [String: JSON], records: Int?, assets: Int?) {
        var r = reader
        var members: [String: JSON] = [:]
        var records: Int?, assets: Int?
        var seen = Set<String>()
        try r.beginObject()
        while true {
            guard let key = try r.nextKey() else { break }
            guard seen.insert(key).inserted else {
                throw r.failAtKey("duplicate key \"\(key)\"")
            }
            switch key {
            case "records":
                let at = r.offset
                r.valueLimit = recordElement
                if try r.beginArrayIfAny() {
                    records = at
                    while try r.nextElement() { try r.skipValue() }
                } else {
                    _ = try r.value()
                }
            case "assets":
                let at = r.offset
                r.valueLimit = assetElement
                if try r.beginObjectIfAny() {
                    assets = at
                    while try r.nextKey() != nil { try r.skipValue() }
                } else {
                    _ = try r.value()
                }
            default:
                r.valueLimit = wholeMember
                members[key] = try r.value()
            }
        }
        try r.end()
        return (members, records, assets)
    }

    /// Hands each element of `$.records` to `body` with its index (none when it is not an array).
    public func forEachRecord(_ body: (Int, JSON) throws(CKError) -> Void) throws(CKError) {
        switch backing {
        case .json(let records, _):
            for (i, item) in records.enumerated() { try body(i, item) }
        case .file(let fd, let input, let at, _, _):
            guard let at else { return }
            try checkUnchanged()
            try FixtureDocument.elements(JSONStreamReader(.file(fd: fd, from: at), input: input, valueLimit: FixtureDocument.recordElement), body)
        case .bytes(let bytes, let input, let at, _):
            guard let at else { return }
            var r = JSONStreamReader(.bytes(bytes), input: input, valueLimit: FixtureDocument.recordElement)
            try r.skip(to: at)
            try FixtureDocument.elements(r, body)
        }
    }

    /// Hands each member of `$.assets` to `body` (none when it is not an object).
    public func forEachAsset(_ body: (String, JSON) throws(CKError) -> Void) throws(CKError) {
        switch backing {
        case .json(_, let assets):
            for (h, v) in assets { try body(h, v) }
        case .file(let fd, let input, _, let at, _):
            guard let at else { return }
            try checkUnchanged()
            try FixtureDocument.members(JSONStreamReader(.file(fd: fd, from: at), input: input, valueLimit: FixtureDocument.assetElement), body)
        case .bytes(let bytes, let input, _, let at):
            guard let at else { return }
            var r = JSONStreamReader(.bytes(bytes), input: input, valueLimit: FixtureDocument.assetElement)
            try r.skip(to: at)
            try FixtureDocument.members(r, body)
        }
    }

    private static func elements(_ reader: JSONStreamReader, _ body: (Int, JSON) throws(CKError) -> Void) throws(CKError) {
        var r = reader
        guard try r.beginArrayIfAny() else { return }
        var i = 0
        while try r.nextElement() {
            try body(i, try r.value())
            i += 1
        }
    }

    private static func members(_ reader: JSONStreamReader, _ body: (String, JSON) throws(CKError) -> Void) throws(CKError) {
        var r = reader
        guard try r.beginObjectIfAny() else { return }
        while let key = try r.nextKey() { try body(key, try r.value()) }
    }

    /// A file read again must be the one checked: a change in between is refused rather than half believed.
    private func checkUnchanged() throws(CKError) {
        guard case .file(let fd, let input, _, _, let stamp) = backing else { return }
        var st = stat()
        guard fstat(fd, &st) == 0,
              Stamp(size: Int(st.st_size), seconds: Int(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec)) == stamp else {
            throw CKError(.invalidArguments, "\(input) changed while it was being imported; nothing was imported",
                          hint: "import it again once nothing writes to it")
        }
    }
}
