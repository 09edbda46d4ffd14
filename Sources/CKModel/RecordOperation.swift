
/// How a save treats the copy on the server (CKModifyRecordsOperation.RecordSavePolicy).
public enum SavePolicy: String, Sendable, CaseIterable {
    case ifServerRecordUnchanged, changedKeys, allKeys
}

/// What one operation of a modify request does (the Web Services operationType).
public enum RecordOperationType: String, Sendable, CaseIterable {
    case create, update, forceUpdate, replace, forceReplace, delete, forceDelete

    package var isDelete: Bool { self == .delete || self == .forceDelete }
    package var needsTag: Bool { self == .update || self == .replace || self == .delete }
    package var replacesFields: Bool { self == .replace || self == .forceReplace }
}

/// A field value as given by a client, typed by the schema when the server applies it.
public enum FieldInput: Sendable {
    /// A typed value.
    case value(FieldValue)
    /// Command-line text with an optional explicit type and reference action; `encrypted` for encryptedValues.
    case text(String, type: FieldType?, action: Reference.Action?, encrypted: Bool = false)
    /// A Web Services / cktool field dictionary.
    case json(JSON)
    /// Remove the field.
    case unset
}

/// One operation of a modify request.
public struct RecordOperation: Sendable {
    public var type: RecordOperationType
    public var recordName: String?
    public var recordType: String?
    public var changeTag: String?
    public var fields: [String: FieldInput]
    /// The parent reference to set or remove.
    public var parent: ParentChange = .keep
    /// Set for an operation that could not be read: applying it fails with this error.
    public var inputError: CKError?
    /// For a `cloudkit.share` record: the keys records/modify sends beyond fields (nil: keep the server's).
    public var share: ShareInput?

    public init(type: RecordOperationType, recordName: String? = nil, recordType: String? = nil,
                changeTag: String? = nil, fields: [String: FieldInput] = [:]) {
        self.type = type
        self.recordName = recordName
        self.recordType = recordType
        self.changeTag = changeTag
        self.fields = fields
    }

    /// An operation that fails with `error` when applied (a batch line that is JSON but not an operation).
    public static func invalid(_ error: CKError, recordName: String) -> RecordOperation {
        var op = RecordOperation(type: .forceUpdate, recordName: recordName)
        op.inputError = error
        return op
    }

    /// The operation a native save makes: create, or update with a change tag, or force-update under a policy.
    public static func save(recordType: String, recordName: String?, fields: [String: FieldInput],
                            ifTag: String?, policy: SavePolicy?) -> RecordOperation {
        let type: RecordOperationType
        switch (policy, ifTag) {
        case (.changedKeys?, _), (.allKeys?, _): type = .forceUpdate
        case (_, _?): type = .update
        default: type = .create
        }
        return RecordOperation(type: type, recordName: recordName, recordType: recordType, changeTag: ifTag, fields: fields)
    }
}

/// The outcome of one operation.
public enum RecordResult: Sendable {
    case saved(Record)
    /// A deletion; `cascade` when a DELETE_SELF reference removed it.
    case deleted(recordName: String, recordType: String, cascade: Bool)
    case failed(recordName: String, CKError)

    public var recordName: String {
        switch self {
        case .saved(let r): return r.recordName
        case .deleted(let n, _, _), .failed(let n, _): return n
        }
    }

    public var error: CKError? { if case .failed(_, let e) = self { return e }; return nil }
}
