import Foundation
import CKCore
@testable import CKModel
@testable import CKFiles
@testable import CKSQLite
@testable import CKSchema
@testable import CKQuery
@testable import CKStorage
@testable import CKServer
@testable import CKSync
@testable import CKDataModel

/// A fresh store in a temporary directory, removed when the value goes away.
final class TempStore {
    let dir: String
    let store: CKStore

    init() throws {
        dir = NSTemporaryDirectory() + "ck-core-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        store = try CKStore.open(StoreLocation(path: dir + "/store", source: .flag))
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    func db(_ scope: DatabaseScope = .private, _ env: CKCore.Environment = .development, user: String = "default") throws -> CKDatabase {
        try store.container().database(scope, environment: env, user: user)
    }

    var envDir: String { dir + "/store/containers/" + CKStore.defaultContainerID + "/development" }

    func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
}

extension CKDatabase {
    /// Saves one record from text assignments; throws the operation's error.
    @discardableResult
    func save(_ type: String, _ name: String?, _ fields: [String: String], ifTag: String? = nil,
              policy: SavePolicy? = nil, zone: String = Names.defaultZoneName) throws -> Record {
        var inputs: [String: FieldInput] = [:]
        for (k, v) in fields { inputs[k] = .text(v, type: nil, action: nil) }
        let r = try modify([.save(recordType: type, recordName: name, fields: inputs, ifTag: ifTag, policy: policy)], zone: zone)
        switch r.results[0] {
        case .saved(let rec): return rec
        case .failed(_, let e): throw e
        case .deleted: throw CKError(.internalError, "unexpected delete")
        }
    }

    func fetchOne(_ name: String, zone: String = Names.defaultZoneName) throws -> Record {
        switch try fetch([name], zone: zone)[0] {
        case .saved(let r): return r
        case .failed(_, let e): throw e
        case .deleted: throw CKError(.internalError, "unexpected delete")
        }
    }
}

/// The CKError a throwing call ends with, or nil.
func ckError(_ body: () throws -> Void) -> CKError? {
    do { try body(); return nil } catch let e as CKError { return e } catch { return nil }
}

/// A fixed-seed SplitMix64, so fuzz loops in tests are the same on every run.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }

    /// JSON-ish bytes the line readers' fuzz loops insert.
    static let fuzzTokens = [#"""#, "\\", ",", ":", "{", "}", "[", "]", "null", "true", "1e999", "-", "0", " ", "\u{80}"]
        .map { Array($0.utf8) }

    /// `line` with one to three edits: a flipped bit, a removed byte, or an inserted token.
    mutating func mutated(_ line: [UInt8]) -> [UInt8] {
        var line = line
        for _ in 0...below(2) {
            let at = below(line.count)
            switch below(3) {
            case 0: line[at] ^= UInt8(1 << below(8))
            case 1: line.remove(at: at)
            default: line.insert(contentsOf: SplitMix64.fuzzTokens[below(SplitMix64.fuzzTokens.count)], at: at)
            }
        }
        return line
    }
}
