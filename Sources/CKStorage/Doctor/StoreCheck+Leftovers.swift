#if canImport(Glibc)
import Glibc
import CKFiles
import CKModel
#endif

/// What interrupted operations leave behind, and what is not ck's: intent records, pending and half-removed
/// trees, temporary files, symlinks and other strangers.
extension StoreCheck {
    /// An operation on several files interrupted in `base`: reported; with repair finished (or, never committed,
    /// rolled back) as the next writer would. `finish` does it and returns the finished operation's name.
    package mutating func checkInterrupted(_ base: String, finish: () throws(CKError) -> String?) {
        let left = Intent.leftovers(base)
        guard left.intent || !left.trees.isEmpty else { return }
        let what = left.intent ? "an interrupted operation on several files (\(Intent.fileName))"
                               : "leftovers of an interrupted operation: \(left.trees.joined(separator: ", "))"
        guard repair else {
            note(.warning, base, what, fix: "the next command that changes this part of the store finishes it; 'ck doctor --repair' does it now")
            return
        }
        do {
            let op = try finish()
            note(.warning, base, what, fix: op.map { "finished '\($0)'" } ?? "removed (it was never committed)", repaired: true)
        } catch {
            note(.problem, base, "\(what) could not be finished: \(error.reason)", fix: "check permissions, then run 'ck doctor --repair' again")
        }
    }

    /// What a change that a crash interrupted recorded to apply with its lines (notifications, schema, fault counts).
    package mutating func checkPendingNotifications(_ env: EnvironmentStore) {
        let path = PendingNotifications.path(env)
        guard FileIO.lexists(path) else { return }
        let what = "notifications, schema change or fault counts of a change that a crash interrupted, not yet applied"
        guard repair else {
            note(.warning, path, what, fix: "the next command in this environment delivers them (or drops them if the change never reached the log); 'ck doctor --repair' does it now")
            return
        }
        do {
            let delivered = try PendingNotifications.recover(env)
            note(.warning, path, what, fix: delivered == true ? "applied" : "dropped: the change never reached the log", repaired: true)
        } catch {
            note(.problem, path, "\(what): \(error.reason)", fix: "move it out of the store (what it holds is then lost)")
        }
    }

    /// Checks the entries of a directory ck fills (zone logs, assets, notifications): symlinks and other
    /// non-regular files, temporary files and half-removed trees. Returns the names that are ordinary files.
    package mutating func checkEntries(_ dir: String) -> [String] {
        var regular: [String] = []
        for name in FileIO.list(dir) {
            let path = dir + "/" + name
            var st = Glibc.stat()
            guard lstat(path, &st) == 0 else { continue }
            let kind = st.st_mode & S_IFMT
            if name.hasPrefix(FileIO.deletingPrefix) {
                if repair {
                    FileIO.removeNow(path)
                    note(.warning, path, "left by a removal that was interrupted", fix: "removed (its removal was already committed)", repaired: true)
                } else {
                    note(.warning, path, "left by a removal that was interrupted", fix: "harmless; 'ck doctor --repair' removes it")
                }
            } else if name.hasPrefix(".") && name.contains(".tmp-") {
                if repair, let dest = moveAside(path) {
                    note(.warning, path, "temporary file left by an interrupted write", fix: "moved to \(dest)", repaired: true)
                } else {
                    note(.warning, path, "temporary file left by an interrupted write", fix: "harmless; 'ck doctor --repair' moves it aside")
                }
            } else if kind == S_IFLNK {
                note(.problem, path, "a symbolic link: ck refuses to follow links inside the store",
                     fix: "replace it by the file itself, or remove it")
            } else if kind == S_IFREG {
                regular.append(name)
            } else if kind != S_IFDIR {
                note(.problem, path, "not a regular file", fix: "move it out of the store")
            } else {
                regular.append(name)
            }
        }
        return regular
    }
}
