import CKModel

extension SyncReport {
    /// A failed save left to the app: the edit stays pending beside the server record until `ck device resolve`.
    public struct Conflict: Sendable {
        public var zoneName: String
        public var recordName: String
        /// The server record's change tag; nil when the server deleted the record.
        public var serverChangeTag: String?
        /// serverRecordChanged or unknownItem, saying why it was left to the app.
        public var error: CKError
    }

    package static func json(_ c: Conflict) -> JSON {
        .object(["zoneName": .string(c.zoneName), "recordName": .string(c.recordName),
                 "serverRecordChangeTag": c.serverChangeTag.map { .string($0) } ?? .null, "error": c.error.json])
    }
}
