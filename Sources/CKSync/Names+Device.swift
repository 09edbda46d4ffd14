import CKModel

extension Names {
    /// Longest device name: it becomes a file name, `<device>.sqlite`.
    public static let maxDeviceNameLength = 64

    /// A device name: 1–64 letters, digits, '-', '_' or '.', not starting with '.' (it names a file).
    public static func validateDeviceName(_ name: String) throws(CKError) {
        let u = Array(name.utf8)
        let ok = !u.isEmpty && u.count <= maxDeviceNameLength && u.first != 46
            && u.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95 || $0 == 46 }
        guard ok else {
            throw CKError.invalid("invalid device name '\(describe(name))'",
                                  hint: "use up to \(maxDeviceNameLength) letters, digits, '-', '_' or '.', not starting with '.' (e.g. phone, mac-2)")
        }
    }
}
