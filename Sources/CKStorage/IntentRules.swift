import CKFiles
import CKModel

/// What an intent record of each operation may name (`Intent.read` refuses any other step): a planted record must
/// not make the next command move or remove anything but the files that operation changes.
enum IntentRules {
    /// At the store root: a container delete names ck.json and the container's trees; an import into a new
    /// container and a container create name that container's directory.
    static func root(_ operation: String, _ path: String) -> Bool {
        for (prefix, allowed) in [("container delete ", { (id: String) in [StoreLayout.configName] + StoreLayout.containerTrees(id) }),
                                  ("import into new container ", { (id: String) in [StoreLayout.containersName + "/" + id] }),
                                  ("container create ", { (id: String) in [StoreLayout.containersName + "/" + id] })]
        where operation.hasPrefix(prefix) {
            let id = String(operation.dropFirst(prefix.count))
            return !id.isEmpty && !id.contains("/") && !id.hasPrefix(".") && allowed(id).contains(path)
        }
        return false
    }

    /// In an environment: its data files and the trees that hold them (public, private/<user>, assets/<sha256>, …);
    /// and the users an import lists (`.register-pending.json`); never its lock, index or another operation's leftovers.
    static func environment(_ operation: String, _ path: String) -> Bool {
        // The users an import lists ride in its intent too (PendingRegistration).
        if path == PendingRegistration.fileName { return true }
        return StoreLayout.entry(for: "containers/c/development/" + path, including: [.data]) != nil
    }
}
