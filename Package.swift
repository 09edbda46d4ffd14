// swift-tools-version:6.0
import PackageDescription

// Metadata of generic types is reached through their accessors, not by demangling a name at run time: demangling
// checks each generic requirement (String: Hashable, …) against every protocol conformance of the static binary,
// which was a quarter of a fetch's instructions. See docs/performance.md, "Start-up".
let metadataAccessors: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]

/// One target per layer; arrows point down only (docs/architecture.md is the map, ArchitectureTests checks it).
func layer(_ name: String, _ dependencies: [Target.Dependency], resources: [Resource]? = nil) -> Target {
    .target(name: name, dependencies: dependencies, resources: resources, swiftSettings: metadataAccessors)
}

/// The browser console's files (docs/console.md), compiled into the binary as byte arrays: it works offline and the
/// static build carries it.
let consoleFiles = ["index.html", "console.css", "core.js", "records.js", "schema.js", "admin.js", "requests.js"]

/// The layers under the umbrella; test targets import them directly to reach `package` declarations.
let layers: [Target.Dependency] = ["CKModel", "CKFiles", "CKSQLite", "CKSchema", "CKQuery", "CKStorage", "CKServer", "CKSync", "CKDataModel", "CKServe"]

let package = Package(
    name: "ck",
    products: [
        .executable(name: "ck", targets: ["ck"]),
        .library(name: "CKCore", targets: ["CKCore"]),
        .library(name: "CKCommandLine", targets: ["CKCommandLine"]),
    ],
    targets: [
        .systemLibrary(name: "CckSQLite", path: "Sources/CckSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        layer("CKModel", []),
        layer("CKFiles", ["CKModel"]),
        layer("CKSQLite", ["CKModel", "CckSQLite"]),
        layer("CKSchema", ["CKModel"]),
        layer("CKQuery", ["CKModel", "CKSchema"]),
        layer("CKStorage", ["CKModel", "CKSchema", "CKQuery", "CKFiles", "CKSQLite"]),
        layer("CKServer", ["CKModel", "CKSchema", "CKQuery", "CKStorage"]),
        layer("CKSync", ["CKModel", "CKSchema", "CKQuery", "CKServer", "CKFiles", "CKSQLite"]),
        layer("CKDataModel", ["CKModel", "CKSchema", "CKFiles"]),
        layer("CKCore", ["CKModel", "CKSchema", "CKQuery", "CKServer", "CKSync", "CKDataModel"]),
        // libevent's evhttp and libcrypto: the only Debian libraries that ship static archives depending on
        // nothing but libc for an HTTP server and ECDSA verification (docs/serve.md).
        .systemLibrary(name: "CckEvent", path: "Sources/CckEvent", pkgConfig: "libevent_extra",
                       providers: [.apt(["libevent-dev"])]),
        .systemLibrary(name: "CckCrypto", path: "Sources/CckCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        layer("CKServe", ["CKModel", "CKSchema", "CKQuery", "CKServer", "CKFiles", "CckEvent", "CckCrypto"],
              resources: consoleFiles.map { .embedInCode("Console/\($0)") }),
        .target(name: "CKCommandLine", dependencies: ["CKCore", "CKFiles", "CKServe"], swiftSettings: metadataAccessors),
        .executableTarget(name: "ck", dependencies: ["CKCommandLine"], swiftSettings: metadataAccessors),
        .target(name: "CKTestSupport", dependencies: ["CKCore"], path: "Tests/CKTestSupport"),
        .testTarget(name: "CKCoreTests", dependencies: ["CKCore", "CKTestSupport"] + layers, exclude: ["Corpus"]),
        .testTarget(name: "CKCommandLineTests", dependencies: ["CKCommandLine", "CKCore"], exclude: ["Golden"]),
        .testTarget(name: "PublicAPITests", dependencies: ["CKCore", "CKTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["ck", "CKCore", "CKCommandLine", "CKTestSupport"] + layers, exclude: ["Golden", "pyicloud", "console"]),
    ],
    swiftLanguageModes: [.v6]
)
