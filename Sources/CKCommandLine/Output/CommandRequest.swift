import CKServe

/// The request a ck command is: one per process, as one Web Services call is one request. Its uuid is the `uuid`
/// of every error the command reports in JSON (the error object on stderr and each failed item), as CloudKit
/// puts the request's uuid in each error body, so a script can quote one id for everything one command said.
enum CommandRequest {
    /// Made on first use, the same for the rest of the process.
    static let uuid: String = RequestID.next()
}
