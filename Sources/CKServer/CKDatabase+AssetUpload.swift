#if canImport(Glibc)
import Glibc
#endif
import CKModel

extension CKDatabase {
    /// Stores uploaded bytes as an asset of this environment, content-addressed by SHA-256 (the Web Services
    /// upload URL). No record refers to it yet: a later save names it by hash, and `ck gc` removes it if none does.
    public func uploadAsset(_ bytes: [UInt8]) throws(CKError) -> Asset {
        let size = Int64(bytes.count)
        let hash = SHA256.hex(bytes)
        let asset = try perform(.assetUpload, validate: { () throws(CKError) in
            if size > Asset.maxSize { throw Asset.tooLarge("the uploaded file", size: size) }
        }) { (state) throws(CKError) -> Asset in
            // Content-addressed: bytes already in the store are not written again.
            if !env.hasAsset(hash) { state.changes.append(.asset(sha256: hash, bytes: bytes)) }
            return Asset(sha256: hash, size: size)
        }
        // The receipt: this caller may now name these bytes by hash in a save.
        store.assetReceipts.grant(hash, in: self)
        return asset
    }

    /// Gives the caller a receipt for an asset a record it can read holds in `field` (Web Services'
    /// assets/rereference): the asset may then be named in another save. unknownItem when the record can't be read,
    /// lacks the field, holds another asset there, or the store lacks the bytes, alike.
    public func rereference(sha256: String, recordName: String, field: String, zone zoneName: String) throws(CKError) -> Asset {
        let hex = sha256.lowercased()
        var held = Set<String>()
        // A record that isn't there (or can't be read) holds nothing; a damaged store is its own error.
        do throws(CKError) {
            if case .saved(let record)? = try fetch([recordName], zone: zoneName).first { record.fields[field]?.collectAssetHashes(into: &held) }
        } catch where [.unknownItem, .zoneNotFound, .permissionFailure, .userDeletedZone, .invalidArguments].contains(error.code) {
            held = []
        }
        guard held.contains(hex) else {
            throw CKError(.unknownItem, "Asset not found: \(hex) is not in field '\(field)' of a record '\(recordName)' you can read in zone \(zoneName)",
                          hint: "name the record and field that hold the asset")
        }
        let asset = try storedAsset(sha256: hex)
        store.assetReceipts.grant(hex, in: self)
        return asset
    }

    /// The bytes of an asset of this environment, by its SHA-256 (64 hex digits, never a path); unknownItem when
    /// the store has none, or only a symbolic link for it.
    public func assetBytes(sha256: String) throws(CKError) -> [UInt8] {
        let hex = sha256.lowercased()
        return try perform(.assetDownload, validate: { () throws(CKError) in try CKDatabase.checkAssetID(sha256) }) { (_) throws(CKError) -> [UInt8] in
            try refuseLinks(hex)
            guard let bytes = try env.readAsset(hex) else { throw CKDatabase.assetNotFound(hex) }
            return bytes
        }
    }

    /// An asset of this environment by its SHA-256, with its size, without reading its bytes; unknownItem when the
    /// store has none.
    public func storedAsset(sha256: String) throws(CKError) -> Asset {
        let hex = sha256.lowercased()
        return try perform(.assetDownload, validate: { () throws(CKError) in try CKDatabase.checkAssetID(sha256) }) { (_) throws(CKError) -> Asset in
            try refuseLinks(hex)
            guard let size = env.assetSize(hex) else { throw CKDatabase.assetNotFound(hex) }
            return Asset(sha256: hex, size: Int64(size))
        }
    }

    /// Refuses an asset whose path inside the store passes a symbolic link (the file, assets/, the environment or the
    /// container directory): reading opens the file with O_NOFOLLOW, which guards the last component only, and a
    /// planted link must not hand out bytes from outside the store. Answered as a missing asset.
    private func refuseLinks(_ hex: String) throws(CKError) {
        let root = container.store.root + "/"
        var path = env.assetPath(hex)
        while path.hasPrefix(root) {
            var st = stat()
            if lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK {
                throw CKError(.unknownItem, "Asset not found: \(hex): the store holds a symbolic link on its way, which ck does not follow",
                              hint: "'ck doctor' names links inside the store")
            }
            guard let slash = path.lastIndex(of: "/") else { break }
            path = String(path[..<slash])
        }
    }

    private static func checkAssetID(_ id: String) throws(CKError) {
        guard id.utf8.count == 64, id.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }) else {
            throw CKError.invalid("'\(id.prefix(80))' is not an asset id: expected the 64 hex digits of a SHA-256")
        }
    }

    private static func assetNotFound(_ hex: String) -> CKError {
        CKError(.unknownItem, "Asset not found: \(hex)", hint: "'ck gc' removes assets no record refers to")
    }
}
