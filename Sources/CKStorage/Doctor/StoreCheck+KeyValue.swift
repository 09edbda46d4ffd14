import CKFiles
import CKModel

extension StoreCheck {
    /// Checks each user's key-value store file; with repair, moves a broken one aside (that store is then empty).
    package mutating func checkKeyValueStores(_ env: EnvironmentStore) {
        for name in FileIO.list(env.keyValueDir) {
            let path = env.keyValueDir + "/" + name
            if name.hasPrefix(".") && name.contains(".tmp-") && !FileIO.isSymlink(path) {
                // A rewrite of a user's key-value file that was cut short: never read, so it can go aside.
                let what = "temporary file of the key-value store left by an interrupted write (never read)"
                if repair, let dest = moveAside(path) {
                    note(.warning, path, what, fix: "moved to \(dest)", repaired: true)
                } else {
                    note(.warning, path, what, fix: "harmless; 'ck doctor --repair' moves it into lost+found")
                }
                continue
            }
            guard name.hasSuffix(".json"), !name.hasPrefix(".") else {
                note(.warning, path, "not a file ck makes", fix: "move it out of the store")
                continue
            }
            let user = String(name.dropLast(5))
            do throws(CKError) {
                let file = try KVServerFile.read(path, userRecordName: user)
                guard file.userRecordName == user else {
                    throw CKError.corrupt(path: path, "the file belongs to user \(file.userRecordName), not \(user)")
                }
            } catch {
                guard repair, let dest = moveAside(path) else {
                    note(.problem, error, at: path,
                         fix: "fix it by hand, or 'ck doctor --repair' moves it aside (that user's key-value store is then empty)")
                    continue
                }
                note(.problem, error.place ?? path, error.message, fix: "moved to \(dest); fix it and put it back", repaired: true)
            }
        }
    }
}
