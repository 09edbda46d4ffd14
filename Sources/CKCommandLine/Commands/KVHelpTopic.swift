import CKCore

/// `ck help kv`: the key-value store's model, limits, sync rule and events on one page.
enum KVHelpTopic {
    static func text() -> String {
        """
        THE KEY-VALUE STORE

        Each user (--as) has one iCloud key-value store per container and environment,
        as NSUbiquitousKeyValueStore keeps an app's settings. Values are property-list
        types (arrays and dictionaries nest at most \(KVLimits.maxDepth) levels):
          \(KVValue.typeNames.joined(separator: ", "))
        Without --type, text is typed as 'ck record save' types it (true is a string).

        Limits (Apple's)
          \(KVLimits.maxKeys) keys
          \(KVLimits.maxTotalBytes) bytes for all keys and values together
          \(KVLimits.maxValueBytes) bytes for one value
          \(KVLimits.maxKeyBytes) bytes of UTF-8 for a key: a longer (or empty) key is refused at once

        Server and devices
          ck kv set theme dark                  writes the server now; over a quota: exit 6
          ck kv set --device phone theme dark   writes phone's local copy only
          ck kv sync phone                      pushes phone's writes, pulls the others'
          ck sync phone                         records, then the key-value store

        At a sync the newest write per key wins: the later write time, then the
        device name in byte order. Before a device's first sync, its writes of keys
        the server already holds are discarded for the server's values. A write over
        a quota stays on the device, pending, and is refused again at each sync.

        Events (what didChangeExternallyNotification delivers; 'ck kv events <device>')
          0  serverChange          another device's writes arrived
          1  initialSyncChange     the device's first download
          2  quotaViolationChange  the server refused writes over a quota
          3  accountChange         signed in again: the store was replaced by the
                                   account's, whatever the times
        -o json gives userInfo with NSUbiquitousKeyValueStoreChangeReasonKey and
        NSUbiquitousKeyValueStoreChangedKeysKey.

        With no available iCloud account, a device's writes stay local and a sync
        does nothing. The server's store is <env>/kv/<userRecordName>.json; a device
        keeps its copy in its SQLite replica. See docs/kv.md.

        """
    }
}
