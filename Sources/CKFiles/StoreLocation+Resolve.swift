import Foundation
import CKModel

extension StoreLocation {
    /// Resolves the store root; first match wins.
    public static func resolve(dataDir: String?, environment: [String: String], workingDirectory: String) -> StoreLocation {
        func absolute(_ p: String) -> String {
            let expanded = (p as NSString).expandingTildeInPath
            let full = expanded.hasPrefix("/") ? expanded : workingDirectory + "/" + expanded
            return canonical(full)
        }
        if let d = dataDir, !d.isEmpty { return StoreLocation(path: absolute(d), source: .flag) }
        if let d = environment["CK_DATA_DIR"], !d.isEmpty { return StoreLocation(path: absolute(d), source: .environment) }
        var dir = canonical(workingDirectory)
        while true {
            let candidate = dir == "/" ? "/.ck" : dir + "/.ck"
            if FileIO.exists(candidate + "/ck.json") { return StoreLocation(path: candidate, source: .project) }
            if dir == "/" || dir.isEmpty { break }
            dir = PathName.parent(dir)
        }
        let dataHome: String
        if let x = environment["XDG_DATA_HOME"], x.hasPrefix("/") {
            dataHome = x
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            dataHome = home + "/.local/share"
        }
        return StoreLocation(path: dataHome + "/ck", source: .user)
    }

    /// An absolute path without symbolic links, `.` or `..`: realpath(3) when the path exists (every command
    /// but the one that creates the store), else Foundation's standardizingPath, which also copes with missing
    /// components but costs a fifth of a fetch in a static binary.
    package static func canonical(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        return (path as NSString).standardizingPath
    }
}
