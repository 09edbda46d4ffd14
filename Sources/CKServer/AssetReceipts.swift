import Synchronization
import CKModel

/// Upload receipts: which caller uploaded which asset bytes, per container and environment. A save may name an
/// asset by hash only with a receipt (or when that very field of that very record already holds it), so one user
/// can't reach another's bytes by naming their SHA-256. Kept in memory by the store object: an upload and the save
/// that uses it happen in one process (`ck serve`, or one command line's request), as CloudKit's receipts are
/// short-lived too.
final class AssetReceipts: Sendable {
    /// Receipts kept at most; past it the oldest half is forgotten (a long-running server stays bounded).
    static let capacity = 100_000

    private struct Table {
        var order: [String: Int] = [:]
        var next = 0
    }
    private let table = Mutex(Table())

    init() {}

    /// Records that the caller of `db` uploaded the bytes of `sha256`.
    func grant(_ sha256: String, in db: CKDatabase) {
        let key = AssetReceipts.key(sha256, db)
        table.withLock { t in
            t.order[key] = t.next
            t.next += 1
            if t.order.count > AssetReceipts.capacity {
                let cut = t.next - AssetReceipts.capacity / 2
                t.order = t.order.filter { $0.value >= cut }
            }
        }
    }

    /// Whether the caller of `db` holds a receipt for `sha256`.
    func holds(_ sha256: String, in db: CKDatabase) -> Bool {
        let key = AssetReceipts.key(sha256, db)
        return table.withLock { $0.order[key] != nil }
    }

    private static func key(_ sha256: String, _ db: CKDatabase) -> String {
        let who = db.caller.isDeveloper ? "developer" : "user:" + (db.caller.userName ?? "")
        return [db.container.identifier, db.environment.rawValue, who, sha256.lowercased()].joined(separator: "\n")
    }
}
