import CKCore

/// Commands that only read: run against a store that does not exist, they fail (exit 3) instead of creating an
/// empty one, so a mistyped --data-dir or CK_DATA_DIR is caught. Every other command that opens the store creates
/// it on first use (the README's first `ck record save` relies on that).
extension CommandSpec {
    static let readOnlyPaths: Set<String> = [
        "ck record fetch", "ck record list", "ck query", "ck asset get", "ck changes zone", "ck changes database", "ck export", "ck doctor",
        "ck container list", "ck container show", "ck zone list", "ck zone show", "ck schema show", "ck schema export",
        "ck schema validate", "ck schema diff", "ck subscription list", "ck subscription show", "ck notification list", "ck notification show", "ck notification watch",
        "ck user list", "ck user show", "ck account status", "ck role list", "ck quota show", "ck fault list", "ck clock show",
        "ck device list", "ck device show", "ck device records", "ck kv get", "ck kv list", "ck kv show", "ck model diff",
    ]

    /// Commands that only remove: a store that does not exist has nothing to remove, so they fail as the read-only
    /// ones do instead of creating an empty store.
    static let removeOnlyPaths: Set<String> = [
        "ck record delete", "ck zone delete", "ck zone purge", "ck subscription delete", "ck container delete", "ck device delete",
        "ck fault clear", "ck serve key remove", "ck serve token revoke", "ck serve token remove", "ck kv remove", "ck user delete",
        "ck role revoke", "ck notification delete",
    ]

    /// Whether the command only reads the store (see `readOnlyPaths`).
    var readsOnly: Bool { CommandSpec.readOnlyPaths.contains(path) }

    /// Whether the command only removes from the store (see `removeOnlyPaths`).
    var removesOnly: Bool { CommandSpec.removeOnlyPaths.contains(path) }
}
