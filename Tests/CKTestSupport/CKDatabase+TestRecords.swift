import CKCore

extension CKDatabase {
    /// Saves one record from text assignments; throws the operation's error.
    @discardableResult
    public func save(_ type: String, _ name: String?, _ fields: [String: String], ifTag: String? = nil,
                     policy: SavePolicy? = nil, zone: String = Names.defaultZoneName) throws -> Record {
        var inputs: [String: FieldInput] = [:]
        for (k, v) in fields { inputs[k] = .text(v, type: nil, action: nil) }
        let r = try modify([.save(recordType: type, recordName: name, fields: inputs, ifTag: ifTag, policy: policy)], zone: zone)
        switch r.results[0] {
        case .saved(let rec): return rec
        case .failed(_, let e): throw e
        case .deleted: throw CKError(.internalError, "unexpected delete")
        }
    }

    /// Fetches one record; throws its error.
    public func fetchOne(_ name: String, zone: String = Names.defaultZoneName) throws -> Record {
        switch try fetch([name], zone: zone)[0] {
        case .saved(let r): return r
        case .failed(_, let e): throw e
        case .deleted: throw CKError(.internalError, "unexpected delete")
        }
    }
}
