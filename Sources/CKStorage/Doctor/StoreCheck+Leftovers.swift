#if canImport(Glibc)
import Glibc
import CKFiles
import CKModel
#endif

/// What interrupted operations leave behind, and what is not ck's: intent records, pending and half-removed
/// trees, temporary files, symlinks and other strangers.
extension StoreCheck {
    /// An operation on several files interrupted in `base`: reported; with repair finished (or, never committed,
    /// rolled back) as the next writer would. `finish` does it and returns the finished operation's name. An
    /// intent record that names a step its operation never changes is an error: no command acts on it, and repair
    /// moves it into lost+found.
    package mutating func checkInterrupted(_ base: String, permits: Intent.Rule, finish: () throws(CKError) -> String?) {
        var left = Intent.leftovers(base)
        guard left.intent || !left.trees.isEmpty else { return }
        let intentPath = base + "/" + Intent.fileName
        if left.intent {
            do throws(CKError) { _ = try Intent.read(base, permits: permits) } catch {
                let fix = "no command acts on it; 'ck doctor --repair' moves it into lost+found"
                if repair, let dest = moveAside(intentPath) {
                    note(.problem, intentPath, error.message, fix: "moved to \(dest); nothing it names was touched", repaired: true)
                    left = Intent.leftovers(base)
                    guard !left.trees.isEmpty else { return }
                } else {
                    note(.problem, intentPath, error.message, fix: repair ? "move it out of the store" : fix)
                    return
                }
            }
        }
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

    /// Every symbolic link anywhere in the store is an error: ck follows none, and one in place of a directory
    /// or a file would lead ck's reads and writes outside the store. Repair moves the link itself (never what it
    /// points to) into lost+found. lost+found keeps what repairs moved there; devices/ is sync's (its own check).
    package mutating func checkLinks() {
        var links: [String] = []
        func walk(_ fd: Int32, _ path: String, top: Bool) {
            for name in FileIO.list(fd: dup(fd)) {
                var st = Glibc.stat()
                guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                let kind = st.st_mode & S_IFMT
                if kind == S_IFLNK {
                    links.append(path + "/" + name)
                } else if kind == S_IFDIR, !(top && (name == "lost+found" || name == StoreLayout.devicesName)) {
                    let sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
                    guard sub >= 0 else { continue }
                    walk(sub, path + "/" + name, top: false)
                    close(sub)
                }
            }
        }
        guard let fd = FileIO.openDirectory(root.path) else { return }
        walk(fd, root.path, top: true)
        close(fd)
        let what = "a symbolic link: ck refuses to follow links inside the store"
        for link in links {
            if repair, let dest = moveAside(link) {
                note(.problem, link, what, fix: "the link itself (not what it points to) moved to \(dest)", repaired: true)
            } else {
                note(.problem, link, what, fix: "replace it by the file or directory itself, or 'ck doctor --repair' moves the link (not what it points to) into lost+found")
            }
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
            guard let st = FileIO.status(path) else { continue }
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
                // Reported once, by checkLinks.
                continue
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
