import CKFiles
import CKModel
import CKSQLite
import CKServer

extension Device {
    /// The tables every replica has (kv tables are added on first key-value use).
    package static let replicaTables = ["meta", "zones", "server_records", "pending"]

    /// What `ck doctor` finds in a store's device replicas (`<store>/devices/…`), without changing them: each
    /// `.sqlite` file must pass SQLite's integrity check and hold a replica's tables; links and strangers are named.
    public static func examineReplicas(in root: String) -> [DoctorFinding] {
        var out: [DoctorFinding] = []
        func problem(_ place: String, _ why: String, _ fix: String) {
            out.append(DoctorFinding(severity: .problem, place: place, message: why, fix: fix, repaired: false))
        }
        // devices/<container>/<environment>/<userRecordName>/<device>.sqlite
        func walk(_ dir: String, depth: Int) {
            for name in FileIO.list(dir) {
                let path = dir + "/" + name
                if FileIO.isSymlink(path) {
                    problem(path, "is a symbolic link; ck does not follow links inside the store", "remove the link")
                    continue
                }
                if depth < 3 {
                    if FileIO.isDirectory(path) { walk(path, depth: depth + 1) } else {
                        problem(path, "is not a file ck makes", "move it out of the store")
                    }
                    continue
                }
                if name.hasSuffix(".sqlite") {
                    if let why = replicaProblem(path) {
                        problem(path, why, "'ck device delete \(name.dropLast(7))' drops the replica; its next 'ck sync' fetches everything again (pending edits are lost)")
                    }
                } else if StoreLayout.entry(for: String(path.dropFirst(root.count + 1))) == nil {
                    // The layout table, not a list of its own, says which companions of a replica ck makes.
                    problem(path, "is not a file ck makes", "move it out of the store")
                }
            }
        }
        walk(root + "/" + StoreLayout.devicesName, depth: 0)
        return out
    }

    /// Why a replica file is unusable, or nil.
    package static func replicaProblem(_ path: String) -> String? {
        do {
            let conn = try SQLiteConnection(path: path)
            let check = try conn.prepare("PRAGMA integrity_check")
            var messages: [String] = []
            while try check.step() { messages.append(check.text(0)) }
            if messages != ["ok"] { return "SQLite's integrity check fails: " + messages.prefix(3).joined(separator: "; ") }
            let tables = try conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            var have = Set<String>()
            while try tables.step() { have.insert(tables.text(0)) }
            let missing = replicaTables.filter { !have.contains($0) }
            if !missing.isEmpty { return "is not a device replica: no table " + missing.joined(separator: ", ") }
            return nil
        } catch {
            return "can't be read as SQLite: \(error.message)"
        }
    }
}
