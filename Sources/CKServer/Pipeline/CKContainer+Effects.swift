import CKModel
import CKStorage

/// The effects stage of developer work (schema, gc, faults, users): the body lists its changes while it holds
/// the locks, and they go to the one writer under the same locks.
extension CKContainer {
    /// Runs `body` holding the environment's exclusive lock, then hands the changes it listed to the writer.
    package func writing<T>(_ env: EnvironmentStore, _ body: (inout [StoreChange]) throws(CKError) -> T) throws(CKError) -> T {
        try env.locked(exclusive: true) { () throws(CKError) -> T in
            var changes: [StoreChange] = []
            let result = try body(&changes)
            try env.apply(changes)
            return result
        }
    }

    /// Runs `body` holding development's lock, then production's (always in that order); the changes it lists for
    /// an environment (held exclusively) go to the writer under the same locks.
    package func withBothEnvironments<T>(developmentExclusive: Bool, productionExclusive: Bool,
                                         _ body: (EnvironmentStore, EnvironmentStore, inout [Environment: [StoreChange]]) throws(CKError) -> T) throws(CKError) -> T {
        let dev = environmentStore(.development), prod = environmentStore(.production)
        return try dev.locked(exclusive: developmentExclusive) { () throws(CKError) -> T in
            try prod.locked(exclusive: productionExclusive) { () throws(CKError) -> T in
                var changes: [Environment: [StoreChange]] = [:]
                let result = try body(dev, prod, &changes)
                for (env, exclusive) in [(dev, developmentExclusive), (prod, productionExclusive)] {
                    guard let list = changes[env.environment], !list.isEmpty else { continue }
                    // A write under a shared lock would race other writers.
                    guard exclusive else { throw CKError.internalError("\(env.environment.rawValue) changed under a shared lock") }
                    try env.apply(list)
                }
                return result
            }
        }
    }

    /// Reads, changes and rewrites container.json holding the root lock; nothing is written when `change` leaves it
    /// as it was.
    package func updateInfo(_ change: (inout [String: JSON]) throws(CKError) -> Void) throws(CKError) {
        try store.writingRoot { (writes) throws(CKError) in
            guard var o = try infoFile.read() else { throw missing }
            let before = o
            try change(&o)
            if JSON.object(before) != JSON.object(o) { writes.append(.containerInfo(id: identifier, o)) }
        }
    }
}

extension CKStore {
    /// Runs `body` holding the root lock (ck.json and every container.json), then hands the changes it listed to
    /// the root's writer under the same lock. `makeDirectory`: a store not yet made gets its directory first.
    package func writingRoot<T>(makeDirectory: Bool = false, _ body: (inout [RootChange]) throws(CKError) -> T) throws(CKError) -> T {
        if makeDirectory { try files.makeDirectory() }
        return try files.locked(exclusive: true) { () throws(CKError) -> T in
            var changes: [RootChange] = []
            let result = try body(&changes)
            try files.apply(changes)
            return result
        }
    }
}
