/// The store's clock (`clock.json` at the store root, `ck clock`): the real time moved by an offset, or a fixed
/// instant. Every time ck stamps or compares (records' created and modified, fault windows, cursors, tokens) is
/// read through it, so tests can set "now" without waiting.
public struct StoreClock: Sendable, Equatable {
    /// Milliseconds added to the real time (a running clock).
    public var offset: Int64 = 0
    /// A frozen instant (ms since 1970); when set, the clock does not move by itself and `offset` is unused.
    public var fixed: Int64?

    /// The real time, unmoved: what a store without clock.json reads.
    public static let real = StoreClock()

    /// A clock `offset` ms from the real time, or fixed at `fixed`.
    public init(offset: Int64 = 0, fixed: Int64? = nil) {
        self.offset = offset
        self.fixed = fixed
    }

    /// Whether the clock reads the real time.
    public var isReal: Bool { fixed == nil && offset == 0 }

    /// The clock's time when the real time is `real` (ms since 1970).
    public func now(real: Int64) -> Int64 { fixed ?? real &+ offset }

    /// The clock moved forward by `ms`: a fixed instant moves, a running clock's offset grows.
    public func advanced(by ms: Int64) -> StoreClock {
        var c = self
        if let f = fixed { c.fixed = f &+ ms } else { c.offset &+= ms }
        return c
    }

    /// `{"format": 1, "offset": ms}` or `{"format": 1, "fixed": ms}`: clock.json's contents.
    public var json: JSON {
        var o: [String: JSON] = ["format": .int(1)]
        if let f = fixed { o["fixed"] = .int(f) } else { o["offset"] = .int(offset) }
        return .object(o)
    }

    /// Reads clock.json's object; `path` names the file in errors.
    public init(json o: [String: JSON], path: String) throws(CKError) {
        if let f = o["format"]?.int64Value, f > 1 {
            throw CKError.corrupt(path: path, "clock format \(f) is newer than this ck understands (1)")
        }
        if let unknown = o.keys.sorted().first(where: { !["format", "offset", "fixed"].contains($0) }) {
            throw CKError.corrupt(path: path, "\"\(unknown)\" is not a clock key (keys: format, offset, fixed)")
        }
        let offset = o["offset"], fixed = o["fixed"]
        if offset != nil && fixed != nil { throw CKError.corrupt(path: path, "a clock has an \"offset\" or a \"fixed\" instant, not both") }
        if let offset {
            guard let v = offset.int64Value, offset.doubleValue == Double(v) else {
                throw CKError.corrupt(path: path, "\"offset\" must be a whole number of milliseconds")
            }
            self.offset = v
        }
        if let fixed {
            guard let v = fixed.int64Value, fixed.doubleValue == Double(v), ISO8601.validRange.contains(v) else {
                throw CKError.corrupt(path: path, "\"fixed\" must be an instant in milliseconds since 1970 (years 1 to 9999)")
            }
            self.fixed = v
        }
    }
}
