import Foundation
import CKModel
import CKServer

/// assets/upload and assets/rereference.
enum AssetsEndpoints {
    /// `{tokens:[{recordType, fieldName, recordName?}], zoneID?}` → `{tokens:[{recordName, fieldName, url}]}` in request
    /// order; a token without a recordName gets a new UUID. Each url takes one raw-bytes POST within 15 minutes.
    static func upload(_ context: RequestContext) throws(CKError) -> JSON {
        let items = try SubscriptionsEndpoints.array(context.body, "tokens")
        try checkZoneID(context.body["zoneID"])
        _ = try context.container()
        var out: [JSON] = []
        for (i, item) in items.enumerated() {
            let path = "tokens[\(i)]"
            guard case .object(let o) = item else { throw CKError.invalid("\(path): expected {recordType, fieldName, recordName?}, got \(item.kindName)") }
            let recordType = try string(o, "recordType", path: path)
            let fieldName = try string(o, "fieldName", path: path)
            try named(path + ".recordType") { () throws(CKError) in try Names.validateRecordType(recordType) }
            try named(path + ".fieldName") { () throws(CKError) in try Names.validateFieldName(fieldName) }
            var recordName = UUID().uuidString
            if let v = o["recordName"], !v.isNull {
                guard let s = v.stringValue else { throw CKError.invalid("\(path).recordName: expected a string, got \(v.kindName)") }
                try named(path + ".recordName") { () throws(CKError) in try Names.validateRecordName(s) }
                recordName = s
            }
            out.append(.object(["recordName": .string(recordName), "fieldName": .string(fieldName),
                                "url": .string(context.server.assets.uploadURL(context))]))
        }
        return .object(["tokens": .array(out)])
    }

    /// `{assets:[{fileChecksum, size, …, recordName?, fieldName?}], zoneID?}` → `{assets:[asset dictionary]}`.
    /// ck stores asset bytes once by content and keeps them while any record refers to them, so a new reference
    /// needs no copy: each asset that field `fieldName` of record `recordName` (in `zoneID`) holds, in a record the
    /// caller can read, comes back as a dictionary a save can use (a receipt); any other comes back as
    /// `{fieldName?, recordName?, reason, serverErrorCode:"NOT_FOUND"}`, whether the store has it or not.
    static func rereference(_ context: RequestContext) throws(CKError) -> JSON {
        let items = try SubscriptionsEndpoints.array(context.body, "assets")
        try checkZoneID(context.body["zoneID"])
        let db = try context.database()
        let zoneName = context.body["zoneID"]?["zoneName"]?.stringValue ?? Names.defaultZoneName
        var out: [JSON] = []
        for (i, item) in items.enumerated() {
            let path = "assets[\(i)]"
            guard case .object(let o) = item else { throw CKError.invalid("\(path): expected an asset dictionary, got \(item.kindName)") }
            guard let sum = o["fileChecksum"]?.stringValue, let digest = Data(base64Encoded: sum), digest.count == 32 else {
                throw CKError.invalid("\(path).fileChecksum: expected the base64 of a 32-byte SHA-256 (as assets/upload answered it)")
            }
            let hex = digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            do throws(CKError) {
                // Only an asset a record the caller can read holds: the answer is a receipt for another save.
                guard let recordName = o["recordName"]?.stringValue, let fieldName = o["fieldName"]?.stringValue else {
                    throw CKError(.unknownItem, "\(path): Asset not found: name the recordName and fieldName that hold it")
                }
                var dict = AssetTransfer.assetDictionary(try db.rereference(sha256: hex, recordName: recordName, field: fieldName, zone: zoneName))
                for k in ["recordName", "fieldName"] { if let v = o[k], v.stringValue != nil { dict[k] = v } }
                out.append(.object(dict))
            } catch {
                var e = WireError.item(error, key: "fileChecksum", id: .string(sum))
                if case .object(var eo) = e {
                    for k in ["recordName", "fieldName"] { if let v = o[k], v.stringValue != nil { eo[k] = v } }
                    e = .object(eo)
                }
                out.append(e)
            }
        }
        return .object(["assets": .array(out)])
    }

    private static func string(_ o: [String: JSON], _ key: String, path: String) throws(CKError) -> String {
        guard let v = o[key] else { throw CKError.invalid("\(path).\(key): missing") }
        guard let s = v.stringValue else { throw CKError.invalid("\(path).\(key): expected a string, got \(v.kindName)") }
        return s
    }

    /// Runs a name check, prefixing its reason with the place.
    private static func named(_ path: String, _ check: () throws(CKError) -> Void) throws(CKError) {
        do { try check() } catch { throw CKError(error.code, "\(path): \(error.reason)", hint: error.hint) }
    }

    /// A zoneID, if given, is `{zoneName, ownerRecordName?}`.
    private static func checkZoneID(_ z: JSON?) throws(CKError) {
        guard let z, !z.isNull else { return }
        guard case .object(let o) = z, o["zoneName"].map({ $0.stringValue != nil }) ?? true else {
            throw CKError.invalid("zoneID: expected {zoneName, ownerRecordName?}")
        }
    }
}
