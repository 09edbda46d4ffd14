import CKFiles
import CKModel

/// `clock.json` at the store root: the store's clock (`StoreClock`). Written whole and atomically under the root
/// lock (as ck.json); read at every look at the time, but parsed again only when the file changed, so a running
/// `ck serve` follows `ck clock` from another process.
package struct ClockFile: Sendable {
    package let path: String

    package init(root: String) { path = root + "/" + StoreLayout.clockName }

    /// What identifies one version of the file: an atomic write makes a new inode and a new status-change time.
    package struct Stamp: Equatable, Sendable {
        let size: Int, inode: Int64, mtime: Int64, ctime: Int64
    }

    /// The file's stamp, nil when there is none (the real time).
    package var stamp: Stamp? {
        FileIO.fileInfo(path).map { Stamp(size: $0.size, inode: $0.inode, mtime: $0.mtime, ctime: $0.ctime) }
    }

    /// The clock the file holds; the real time when there is no file. A damaged file is reported with its path.
    package func read() throws(CKError) -> StoreClock {
        guard let o = try JSONFile.readObject(path) else { return .real }
        return try StoreClock(json: o, path: path)
    }

    /// Writes the clock (call with the root lock held); the real time removes the file.
    func write(_ clock: StoreClock) throws(CKError) {
        if clock.isReal {
            if FileIO.lexists(path) { try FileIO.unlink(path) }
            return
        }
        try JSONFile.write(path, clock.json)
    }
}
