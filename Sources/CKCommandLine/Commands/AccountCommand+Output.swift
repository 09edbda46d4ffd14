import CKCore

extension AccountCommand {
    /// `account status` and `account set`: `{"user", "accountStatus", "code"}`; `user` is null for --anonymous.
    struct Status: OutcomeOutput {
        var caller: Caller
        var status: AccountStatus
        /// What the sentence starts with: "" for status, "Account of " for set.
        var verb: String

        var json: JSON {
            .object(["user": caller.userName.map { .string($0) } ?? .null, "accountStatus": .string(status.rawValue),
                     "code": .int(Int64(status.code))])
        }
        var line: String { status.rawValue }
        var sentence: String { "\(verb)\(caller.description): \(status.rawValue)" }
    }
}
