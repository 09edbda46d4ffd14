import Foundation
import CKModel
import CKStorage

/// The store's clock (`clock.json`, `ck clock`, `CK_NOW`): what every stamp and every comparison with "now" reads.
extension CKStore {
    /// The real time, ms since 1970.
    package static func realNow() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// `now()` unless a program replaced it: the pin, else the real time through clock.json.
    func clockNow() -> Int64 {
        if let pinned = pinnedNow { return pinned }
        return storedClock().now(real: CKStore.realNow())
    }

    /// Whether the store's time stands still (CK_NOW, or a clock fixed with 'ck clock set'): waiting moves nothing.
    package var clockIsFixed: Bool { pinnedNow != nil || storedClock().fixed != nil }

    /// clock.json, parsed again only when the file changed (a stat per look). A damaged file is warned about once
    /// and the real time used: a broken test fixture must not stop the user's work (as faults.json).
    package func storedClock() -> StoreClock {
        let file = ClockFile(root: root)
        let stamp = file.stamp
        if let cached = clockCache, cached.stamp == stamp { return cached.clock }
        var clock = StoreClock.real
        if stamp != nil {
            do throws(CKError) { clock = try file.read() } catch {
                warn(Diagnostic(place: error.place ?? file.path, error.message
                                + " (ck goes on with the real time; 'ck clock reset' or 'ck doctor --repair' removes the file)"))
            }
        }
        clockCache = (stamp, clock)
        return clock
    }

    /// What `ck clock show` reports.
    public struct ClockReading: Sendable {
        /// The store's time now (the pin included).
        public var now: Int64
        /// clock.json's setting.
        public var clock: StoreClock
        /// `CK_NOW`, when it fixes this process's time.
        public var pinned: Int64?
    }

    /// The store's clock: its time now and how it is set. A damaged clock.json is an error here.
    public func clock() throws(CKError) -> ClockReading {
        try perform(.clockRead, container: nil) { () throws(CKError) -> ClockReading in
            let clock = try ClockFile(root: root).read()
            return ClockReading(now: pinnedNow ?? clock.now(real: CKStore.realNow()), clock: clock, pinned: pinnedNow)
        }
    }

    /// Fixes the clock at `instant` (`running`: it runs on from there, an offset from the real time). An instant
    /// before the store's current time is refused unless `backwards`: records' modification times and the
    /// order of what the store stamped would go back. Returns the clock's new time.
    @discardableResult
    public func setClock(_ instant: Int64, running: Bool = false, backwards: Bool = false) throws(CKError) -> Int64 {
        guard ISO8601.validRange.contains(instant) else { throw CKError.invalid("the instant \(instant) is outside years 1 to 9999") }
        return try changeClock(backwards: backwards, replacesDamaged: true, what: "setting the clock to \(ISO8601.format(milliseconds: instant))") { (_, real) in
            running ? StoreClock(offset: instant - real) : StoreClock(fixed: instant)
        }
    }

    /// Moves the clock forward by `ms` milliseconds. Returns its new time.
    @discardableResult
    public func advanceClock(by ms: Int64) throws(CKError) -> Int64 {
        guard ms >= 0 else { throw CKError.invalid("the clock only advances; to go back use 'ck clock set <instant> --backwards'") }
        return try changeClock(backwards: false, replacesDamaged: false, what: "advancing the clock") { (clock, _) in clock.advanced(by: ms) }
    }

    /// Returns the clock to the real time (clock.json removed); refused when that goes back, unless `backwards`.
    @discardableResult
    public func resetClock(backwards: Bool = false) throws(CKError) -> Int64 {
        try changeClock(backwards: backwards, replacesDamaged: true, what: "resetting the clock to the real time") { (_, _) in .real }
    }

    /// Reads clock.json, makes the new clock and writes it, under the root lock; refuses a clock that goes back.
    /// `replacesDamaged`: a damaged file is replaced (set, reset: what the clock was is not needed; ck has been on
    /// the real time meanwhile, as its warning said), not moved from (advance).
    private func changeClock(backwards: Bool, replacesDamaged: Bool, what: String,
                             _ make: (StoreClock, Int64) -> StoreClock) throws(CKError) -> Int64 {
        try perform(.clockSet, container: nil) { () throws(CKError) -> Int64 in
            try writingRoot(makeDirectory: true) { (writes) throws(CKError) -> Int64 in
                let file = ClockFile(root: root)
                let current: StoreClock
                do throws(CKError) { current = try file.read() } catch {
                    guard replacesDamaged else { throw error }
                    current = .real
                }
                let real = CKStore.realNow()
                let before = current.now(real: real)
                let next = make(current, real)
                let after = next.now(real: real)
                if after < before && !backwards {
                    throw CKError.invalid("\(what) would move the store's clock back by \(StoreClock.describe(duration: before - after)), from \(ISO8601.format(milliseconds: before)) to \(ISO8601.format(milliseconds: after)): records saved from now on would be older than those already saved, and modification times would go back",
                                          hint: "add --backwards if that is what the test wants")
                }
                writes.append(.clock(next))
                return after
            }
        }
    }
}
