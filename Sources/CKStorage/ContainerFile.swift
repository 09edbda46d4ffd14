import CKFiles
import CKModel

/// A container's container.json: its identifier, creation time and users. Changed only under the root lock.
package struct ContainerFile: Sendable {
    package let path: String

    package init(path: String) { self.path = path }

    /// What a new container's file holds.
    package static func fresh(_ id: String, created: Int64) -> [String: JSON] {
        ["identifier": .string(id), "created": .int(created), "users": .object([:])]
    }

    /// The file's object; nil when the container does not exist.
    package func read() throws(CKError) -> [String: JSON]? { try JSONFile.readObject(path) }

    func write(_ o: [String: JSON]) throws(CKError) { try JSONFile.write(path, .object(o)) }

    /// The file's shape: a file of another shape is reported with its path, never overwritten.
    package static func check(_ o: [String: JSON], path: String) throws(CKError) {
        func bad(_ why: String) -> CKError { CKError.corrupt(path: path, why) }
        guard o["identifier"]?.stringValue != nil else { throw bad("\"identifier\" is missing or not a string") }
        guard let users = o["users"] else { return }
        guard let list = users.objectValue else { throw bad("\"users\" is not an object") }
        for (name, entry) in list {
            guard let e = entry.objectValue else { throw bad("users.\(Names.describe(name)) is not an object") }
            if let s = e["accountStatus"], s.stringValue.flatMap(AccountStatus.init(rawValue:)) == nil {
                throw bad("users.\(Names.describe(name)).accountStatus is not one of " + AccountStatus.allCases.map(\.rawValue).joined(separator: ", "))
            }
            if let r = e["roles"] {
                guard let byEnv = r.objectValue, byEnv.values.allSatisfy({ $0.arrayValue?.allSatisfy { $0.stringValue != nil } == true }) else {
                    throw bad("users.\(Names.describe(name)).roles is not an object of string arrays by environment")
                }
            }
        }
    }
}
