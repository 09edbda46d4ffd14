
/// Where the store lives and why: `--data-dir`, `$CK_DATA_DIR`, the nearest `.ck/`, or the user store.
public struct StoreLocation: Equatable, Sendable {
    public enum Source: String, Sendable { case flag = "--data-dir", environment = "CK_DATA_DIR", project = ".ck", user = "user store" }
    public var path: String
    public var source: Source

    public init(path: String, source: Source) {
        self.path = path
        self.source = source
    }
}
