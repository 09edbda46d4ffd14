import CKModel

/// Save-path rules CloudKit enforces beyond types: parents, asset references and limits.
extension ModifySession {
    /// The parent a save leaves: checked to exist in this zone (or be saved in this request), never the record itself.
    package func resolveParent(_ change: ParentChange, name: String, existing: Record?, replaces: Bool) throws(CKError) -> String? {
        switch change {
        case .remove: return nil
        case .keep: return replaces ? nil : existing?.parent
        case .set(let parent, let z):
            do throws(CKError) { try Names.validateRecordName(parent) } catch {
                throw CKError.invalid("parent of '\(name)': \(error.reason)")
            }
            if let z, z != zone.zoneID.zoneName {
                throw CKError.invalid("parent of '\(name)': the parent must be in the record's own zone (\(zone.zoneID.zoneName)), not '\(z)'",
                                      hint: "save the parent in \(zone.zoneID.zoneName), or save the child in \(z)")
            }
            if parent == name {
                throw CKError.invalid("parent of '\(name)': a record can't be its own parent")
            }
            if existing?.parent != parent, try current(parent) == nil, !requestSaves.contains(parent) {
                throw CKError(.referenceViolation, "parent of '\(name)': the parent record '\(parent)' does not exist in zone \(zone.zoneID.zoneName)",
                              hint: "save '\(parent)' first, or in the same request")
            }
            return parent
        }
    }

    /// An asset reference names bytes ck has, with their real size, and that the caller may use: bytes given with
    /// this save, bytes the caller uploaded (a receipt), or the asset this field of this record already holds.
    /// Another user's asset is refused exactly as one the store lacks, so a hash tells nothing of others' bytes.
    package func checkAsset(_ a: Asset, key: String, held: FieldValue? = nil) throws(CKError) {
        let actual: Int64
        if let bytes = stagedAssets[a.sha256] {
            actual = Int64(bytes.count)
        } else {
            var kept = Set<String>()
            held?.collectAssetHashes(into: &kept)
            guard kept.contains(a.sha256) || db.store.assetReceipts.holds(a.sha256, in: db) else {
                throw CKError(.assetFileNotFound, "field '\(key)': no asset with sha256 \(a.sha256) uploaded by this caller (an asset must be uploaded before a record names it)",
                              hint: "give the file itself with \(key):asset=@path")
            }
            guard let size = db.env.assetSize(a.sha256) else {
                throw CKError(.assetFileNotFound, "field '\(key)': the bytes of asset \(a.sha256) are missing from the store (a damaged store)",
                              hint: "run 'ck doctor'; or give the file itself with \(key):asset=@path")
            }
            actual = Int64(size)
        }
        guard a.size == actual else {
            throw CKError.invalid("field '\(key)': the asset's size is \(a.size) but its bytes are \(actual) bytes long; an asset's size is always its real size",
                                  hint: "give \"size\": \(actual), or give the file itself with \(key):asset=@path")
        }
        if actual > CKDatabase.maxAssetSize { throw CKDatabase.assetTooLarge("field '\(key)'", size: actual) }
    }

    /// More than 750 DELETE_SELF references to one record is refused (a hard limit in CloudKit).
    package func checkDeleteSelfLimit(_ v: FieldValue, key: String, source: String, existing: FieldValue?) throws(CKError) {
        var targets = Set<String>()
        func collect(_ v: FieldValue, into set: inout Set<String>) {
            switch v {
            case .reference(let r) where r.action == .deleteSelf: set.insert(r.recordName)
            case .list(_, let items): for i in items { collect(i, into: &set) }
            default: break
            }
        }
        collect(v, into: &targets)
        var held = Set<String>()
        if let existing { collect(existing, into: &held) }
        for target in targets.subtracting(held).sorted() {
            // Counted by name: what this request changed overrides the zone, and no record is loaded.
            var names = Set(try reader.referrers(to: target, action: .deleteSelf))
            for (n, r) in overlay {
                if r?.refers(to: target, action: .deleteSelf) == true { names.insert(n) } else { names.remove(n) }
            }
            names.remove(source)
            let others = names.count
            if others >= CKDatabase.maxDeleteSelfReferences {
                throw CKError(.limitExceeded, "field '\(key)': '\(target)' already has \(others) DELETE_SELF references; CloudKit allows \(CKDatabase.maxDeleteSelfReferences) per target",
                              hint: "use action NONE for further references, or a parent reference")
            }
        }
    }

    /// A request may carry at most 2 MB of record data, assets excluded (CloudKit's limitExceeded guideline).
    package func checkRequestSize() throws(CKError) {
        var bound = 0
        for case .save(_, let r) in entries { bound += r.sizeBound }
        guard bound > CKDatabase.maxRequestSize else { return }
        var total = 0
        for case .save(_, let r) in entries { total += r.size }
        if total > CKDatabase.maxRequestSize {
            throw CKError(.limitExceeded, "the request carries \(total) bytes of record data; CloudKit allows \(CKDatabase.maxRequestSize) bytes (2 MB) per request, assets excluded",
                          hint: "split the request in half and send both halves (ck record save --batch splits by size unless --atomic)")
        }
    }
}
