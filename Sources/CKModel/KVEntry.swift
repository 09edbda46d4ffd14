
/// One key of a user's key-value store on the server: its value (nil once removed: a tombstone, so devices
/// learn of the removal), when and where it was written, and the store's change number at that write.
public struct KVEntry: Equatable, Sendable {
    public var key: String
    /// nil: the key was removed.
    public var value: KVValue?
    /// When the write was made on its device (ms since 1970): what "newest" compares.
    public var modified: Int64
    /// The device that wrote it (`ck` for a direct `ck kv set`).
    public var deviceID: String
    /// The store's change number at this write; a device pulls the entries after the number it last saw.
    public var change: Int64

    public init(key: String, value: KVValue?, modified: Int64, deviceID: String, change: Int64) {
        self.key = key
        self.value = value
        self.modified = modified
        self.deviceID = deviceID
        self.change = change
    }

    /// Whether this write is newer than one made at `modified` by `deviceID`: later time first, then the
    /// device name in byte order, so every device and the server order two writes the same way.
    package func isNewer(thanModified modified: Int64, deviceID: String) -> Bool {
        if self.modified != modified { return self.modified > modified }
        return deviceID.utf8.lexicographicallyPrecedes(self.deviceID.utf8)
    }

    package var json: JSON {
        var o: [String: JSON] = ["modified": .int(modified), "deviceID": .string(deviceID), "change": .int(change)]
        if let value {
            o["type"] = .string(value.typeName)
            o["value"] = value.valueJSON
        } else {
            o["deleted"] = .bool(true)
        }
        return .object(o)
    }

    package init(key: String, json: JSON, path: String) throws(CKError) {
        try KVLimits.validateKey(key)
        guard case .object(let o) = json else { throw CKError.invalid("\(path): expected an object") }
        guard let modified = o["modified"]?.int64Value, let deviceID = o["deviceID"]?.stringValue, let change = o["change"]?.int64Value else {
            throw CKError.invalid("\(path): an entry needs modified, deviceID and change")
        }
        self.key = key
        self.modified = modified
        self.deviceID = deviceID
        self.change = change
        if o["deleted"]?.boolValue == true {
            value = nil
        } else {
            let v = try KVValue(json: json, path: path)
            value = v
        }
    }
}
