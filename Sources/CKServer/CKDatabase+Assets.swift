import Foundation
import CKModel

extension CKDatabase {
    /// The local file URL an asset's bytes are read from: Web Services' `downloadURL`, pointing into the store.
    public func downloadURL(_ asset: Asset) -> String { URL(fileURLWithPath: assetPath(asset)).absoluteString }

    /// The record dictionary as a fetch answers it: asset values carry a `downloadURL` (Web Services sends
    /// it "only when fetching the enclosing record", so the store never keeps it).
    public func responseJSON(_ record: Record, keys: [String]? = nil) -> JSON {
        let json = record.json(keys: keys)
        guard record.fields.values.contains(where: { $0.type.base == .asset }), case .object(var o) = json,
              case .object(var fields)? = o["fields"] else { return json }
        for (k, v) in record.fields where v.type.base == .asset && fields[k] != nil {
            fields[k] = .object(["value": withDownloadURL(v), "type": .string(v.type.wsName)])
        }
        o["fields"] = .object(fields)
        return .object(o)
    }

    package func withDownloadURL(_ v: FieldValue) -> JSON {
        switch v {
        case .asset(let a):
            guard case .object(var o) = v.valueJSON else { return v.valueJSON }
            o["downloadURL"] = .string(downloadURL(a))
            return .object(o)
        case .list(_, let items): return .array(items.map(withDownloadURL))
        default: return v.valueJSON
        }
    }

    /// The asset in a record's field (the `index`th of a list), and its bytes.
    public func asset(recordName: String, field: String, index: Int? = nil,
                      zone zoneName: String = Names.defaultZoneName) throws(CKError) -> (asset: Asset, bytes: [UInt8]) {
        guard let result = try fetch([recordName], zone: zoneName).first else {
            throw CKError(.unknownItem, "Record not found: '\(recordName)' in zone \(zoneName)")
        }
        if let e = result.error { throw e }
        guard case .saved(let record) = result else { throw CKError(.unknownItem, "Record not found: '\(recordName)' in zone \(zoneName)") }
        guard let value = record.fields[field] else {
            throw CKError(.unknownItem, "record '\(recordName)' has no field '\(field)'",
                          hint: "its fields: " + record.fields.keys.sorted().joined(separator: ", "))
        }
        let asset: Asset
        switch (value, index) {
        case (.asset(let a), nil), (.asset(let a), 0?): asset = a
        case (.list(.asset, let items), let i?):
            guard items.indices.contains(i), case .asset(let a) = items[i] else {
                throw CKError.invalid("field '\(field)' of '\(recordName)' holds \(items.count) assets; --index \(i) is not one of 0…\(max(0, items.count - 1))")
            }
            asset = a
        case (.list(.asset, let items), nil):
            throw CKError.invalid("field '\(field)' of '\(recordName)' is a list of \(items.count) assets", hint: "name one with --index 0…\(max(0, items.count - 1))")
        default:
            throw CKError.invalid("field '\(field)' of '\(recordName)' is \(value.typeLabel), not an asset")
        }
        let bytes = try env.locked(exclusive: false) { () throws(CKError) -> [UInt8]? in try env.readAsset(asset.sha256) }
        guard let bytes else {
            // Not the caller's input: the record refers to bytes the store lost (a damaged store).
            throw CKError(.assetNotAvailable, "the bytes of asset \(asset.sha256) (field '\(field)' of '\(recordName)') are missing from the store (a damaged store)",
                          hint: "'ck doctor' names the missing file; restore it, or save the record again with the asset")
        }
        return (asset, bytes)
    }
}
