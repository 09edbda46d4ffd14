/// SplitMix64: every random choice in the test suites comes from a fixed seed, so runs repeat.
public struct SeededRNG: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<n (0 when n is not positive).
    public mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }

    /// JSON-ish bytes the line readers' fuzz loops insert.
    public static let fuzzTokens = [#"""#, "\\", ",", ":", "{", "}", "[", "]", "null", "true", "1e999", "-", "0", " ", "\u{80}"]
        .map { Array($0.utf8) }

    /// `line` with one to three edits: a flipped bit, a removed byte, or an inserted token.
    public mutating func mutated(_ line: [UInt8]) -> [UInt8] {
        var line = line
        for _ in 0...below(2) {
            let at = below(line.count)
            switch below(3) {
            case 0: line[at] ^= UInt8(1 << below(8))
            case 1: line.remove(at: at)
            default: line.insert(contentsOf: SeededRNG.fuzzTokens[below(SeededRNG.fuzzTokens.count)], at: at)
            }
        }
        return line
    }
}
