import Synchronization

/// Request UUIDs (`X-Apple-Request-UUID`, an error's `uuid`): version-4-shaped, random-looking, one per request.
///
/// Every request gets one, so it is made without Foundation's `UUID` (a random read and a formatter, a sizeable
/// part of a small request's cost): a counter goes through two keyed bijections of 64 bits (two ids of one process
/// would have to agree on both halves to collide), and the random keys make the ids of two runs unrelated.
package enum RequestID {
    private static let counter = Atomic<UInt64>(0)
    private static let keys: (UInt64, UInt64) = {
        var g = SystemRandomNumberGenerator()
        return (g.next(), g.next())
    }()

    /// The next id, as 36 upper-case hex digits and dashes (8-4-4-4-12).
    package static func next() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        let high = (mix(n ^ keys.0) & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (mix(n &+ keys.1) & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return format(high, low)
    }

    /// splitmix64's finaliser: a bijection of 64-bit values that scatters neighbouring inputs.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` from two 64-bit halves.
    static func format(_ high: UInt64, _ low: UInt64) -> String {
        let digits: StaticString = "0123456789ABCDEF"
        return String(unsafeUninitializedCapacity: 36) { out in
            var i = 0
            func put(_ value: UInt64, _ count: Int) {
                for shift in stride(from: (count - 1) * 4, through: 0, by: -4) {
                    out[i] = digits.utf8Start[Int((value >> UInt64(shift)) & 0xF)]
                    i += 1
                }
            }
            func dash() {
                out[i] = UInt8(ascii: "-")
                i += 1
            }
            put(high >> 32, 8); dash()
            put(high >> 16, 4); dash()
            put(high, 4); dash()
            put(low >> 48, 4); dash()
            put(low, 12)
            return i
        }
    }
}
