
/// CloudKit's naming rules, and the guarantee that a name used in a file path stays inside the store.
public enum Names {
    public static let maxLength = 255
    public static let defaultZoneName = "_defaultZone"

    /// Field names CloudKit keeps: the names of CKRecord's own properties and methods (CKRecord.h). Keys of the
    /// Web Services record dictionary (recordName, zoneID, created, modified, deleted, fields) are not among
    /// them: they sit beside `fields`, never inside it, so they are ordinary field names.
    public static let reservedFieldNames: Set<String> = [
        // Properties.
        "recordID", "recordType", "recordChangeTag", "creationDate", "creatorUserRecordID",
        "modificationDate", "lastModifiedUserRecordID", "parent", "share", "encryptedValues",
        // Methods.
        "allKeys", "allTokens", "changedKeys", "objectForKey", "setObject", "objectForKeyedSubscript",
        "setObjectForKeyedSubscript", "encodeSystemFieldsWithCoder", "setParentReferenceFromRecord",
        "setParentReferenceFromRecordID", "copyWithZone",
    ]

    package static func isLetter(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) }
    package static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    /// A name quoted in a message: control characters shown (`visible`), cut to 60 characters.
    package static func describe(_ s: String) -> String {
        let out = visible(s)
        return out.count > 60 ? String(out.prefix(57)) + "…" : out
    }

    /// Text for people with every control character (C0, DEL, C1) shown as `\u{1B}`: anyone's text must not move
    /// the cursor, recolour or retitle the terminal it is printed on.
    package static func visible(_ s: String) -> String {
        let isControl = { (u: Unicode.Scalar) in u.value < 0x20 || (u.value >= 0x7F && u.value < 0xA0) }
        guard s.unicodeScalars.contains(where: isControl) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            if isControl(u) { out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}" } else { out.unicodeScalars.append(u) }
        }
        return out
    }

    /// A container identifier: `iCloud.` then dot-separated parts of letters, digits, '-' and '_'.
    public static func validateContainerID(_ id: String) throws(CKError) {
        let prefix = "iCloud."
        guard id.hasPrefix(prefix) else {
            throw CKError(.invalidArguments, "invalid container identifier '\(describe(id))': it must begin with 'iCloud.'",
                          hint: "for example iCloud.com.example.Notes")
        }
        let rest = id.dropFirst(prefix.count)
        guard !rest.isEmpty, id.utf8.count <= maxLength else {
            throw CKError(.invalidArguments, "invalid container identifier '\(describe(id))': expected iCloud.<reverse-DNS name> of at most \(maxLength) characters")
        }
        for part in rest.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.utf8.allSatisfy({ isLetter($0) || isDigit($0) || $0 == 45 || $0 == 95 }) else {
                throw CKError(.invalidArguments, "invalid container identifier '\(describe(id))': each dot-separated part must be non-empty letters, digits, '-' or '_'")
            }
        }
    }

    /// A record name: printable ASCII, 1–255 characters, no leading underscore. '/', '.' and '..' are allowed, as
    /// in CloudKit (a live record name is `2/2/<hex>`): no record name ever becomes part of a file path in ck.
    public static func validateRecordName(_ name: String) throws(CKError) {
        try validateASCIIName(name, what: "record name", pathSafe: false)
    }

    /// Longest zone name ck can keep: its log is `<name>.jsonl`, and a file name has at most 255 bytes.
    public static let maxZoneNameLength = 249

    /// A zone name: as a record name (but at most 249 bytes), except the default zone's own name.
    public static func validateZoneName(_ name: String) throws(CKError) {
        if name == defaultZoneName { return }
        try validateASCIIName(name, what: "zone name")
        guard name.utf8.count <= maxZoneNameLength else {
            throw CKError.invalid("zone name '\(describe(name))' is \(name.utf8.count) bytes long; ck keeps zones as files and allows \(maxZoneNameLength)",
                                  hint: "CloudKit allows 255 bytes; use a shorter name")
        }
    }

    /// CloudKit's rule for a name (ASCII, 1–255, no leading underscore); `pathSafe` adds ck's own for names that
    /// become file names (zones): not '.', '..', nor containing '/'.
    package static func validateASCIIName(_ name: String, what: String, pathSafe: Bool = true) throws(CKError) {
        guard !name.isEmpty else { throw CKError.invalid("\(what) must not be empty") }
        guard name.utf8.count <= maxLength else {
            throw CKError.invalid("\(what) '\(describe(name))' is \(name.utf8.count) bytes long; the limit is \(maxLength)")
        }
        guard name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw CKError.invalid("\(what) '\(describe(name))' must contain only printable ASCII characters")
        }
        // A user record name (`_` and 32 hex digits) may be named: fetched, referred to, filtered on.
        guard !name.hasPrefix("_") || (what == "record name" && isUserRecordName(name)) else {
            throw CKError.invalid("\(what) '\(describe(name))' must not start with an underscore (reserved by CloudKit)")
        }
        // CloudKit allows these characters; a file name derived from the name must not escape the store.
        guard !pathSafe || (name != "." && name != ".." && !name.contains("/")) else {
            throw CKError.invalid("\(what) '\(describe(name))' may not be '.', '..' or contain '/'")
        }
    }

    /// A record type: a letter, then letters, digits and underscores.
    public static func validateRecordType(_ type: String) throws(CKError) {
        // CloudKit's own share type is the one name with a dot.
        if type == Share.recordType { return }
        try validateIdentifier(type, what: "record type", hint: "record types start with a letter and use letters, digits and '_'")
    }

    /// A field key: an ASCII letter, then letters, digits and underscores; not one of CKRecord's own names.
    public static func validateFieldName(_ key: String) throws(CKError) {
        if key.hasPrefix("_") {
            throw CKError.invalid("field name '\(describe(key))' is reserved: keys starting with '_' belong to CloudKit")
        }
        try validateIdentifier(key, what: "field name", hint: "field names start with a letter and use letters, digits and '_'")
        if reservedFieldNames.contains(key) {
            throw CKError.invalid("field name '\(key)' is reserved: it is a property of CKRecord",
                                  hint: "choose another name, e.g. '\(key)Value'")
        }
    }

    package static func validateIdentifier(_ s: String, what: String, hint: String) throws(CKError) {
        let u = Array(s.utf8)
        guard let first = u.first else { throw CKError.invalid("\(what) must not be empty") }
        guard u.count <= maxLength else {
            throw CKError.invalid("\(what) '\(describe(s))' is longer than \(maxLength) characters")
        }
        guard isLetter(first), u.allSatisfy({ isLetter($0) || isDigit($0) || $0 == 95 }) else {
            throw CKError.invalid("invalid \(what) '\(describe(s))'", hint: hint)
        }
    }

    /// The type of the records CloudKit keeps one per user.
    package static let userRecordType = "Users"

    /// Whether a name has the shape of a user record name: `_` and 32 lowercase hex digits.
    public static func isUserRecordName(_ name: String) -> Bool {
        let u = Array(name.utf8)
        return u.count == 33 && u[0] == 95 && u.dropFirst().allSatisfy { isDigit($0) || ($0 >= 97 && $0 <= 102) }
    }

    /// A user name, as given with --as: never a user record name, so nobody can act as another user by naming
    /// the record name that every record they created shows.
    public static func validateUserName(_ name: String) throws(CKError) {
        let u = Array(name.utf8)
        if isUserRecordName(name) {
            throw CKError.invalid("'\(name)' is a user record name, not a user name; --as takes the name a user was created with",
                                  hint: "'ck user list' shows each user's name beside its user record name")
        }
        guard !u.isEmpty, u.count <= 64, u.first != 95,
              u.allSatisfy({ isLetter($0) || isDigit($0) || $0 == 95 || $0 == 45 || $0 == 46 || $0 == 64 }),
              name != ".", name != ".." else {
            throw CKError.invalid("invalid user name '\(describe(name))'",
                                  hint: "use up to 64 letters, digits, '_', '-', '.' or '@', not beginning with '_'")
        }
    }
}
