// swift-tools-version:6.0
import PackageDescription

// Metadata of generic types is reached through their accessors, not by demangling a name at run time: demangling
// checks each generic requirement (String: Hashable, …) against every protocol conformance of the static binary,
// which was a quarter of a fetch's instructions. See docs/performance.md, "Start-up".
let metadataAccessors: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]

let package = Package(
    name: "ck",
    products: [
        .executable(name: "ck", targets: ["ck"]),
        .library(name: "CKCore", targets: ["CKCore"]),
        .library(name: "CKCommandLine", targets: ["CKCommandLine"]),
    ],
    targets: [
        .systemLibrary(name: "CckSQLite", path: "Sources/CckSQLite"),
        .target(name: "CKCore", dependencies: ["CckSQLite"], swiftSettings: metadataAccessors),
        .target(name: "CKCommandLine", dependencies: ["CKCore"], swiftSettings: metadataAccessors),
        .executableTarget(name: "ck", dependencies: ["CKCommandLine"], swiftSettings: metadataAccessors),
        .testTarget(name: "CKCoreTests", dependencies: ["CKCore"], exclude: ["Corpus"]),
        .testTarget(name: "CKCommandLineTests", dependencies: ["CKCommandLine", "CKCore"], exclude: ["Golden"]),
        .testTarget(name: "EndToEndTests", dependencies: ["ck", "CKCore", "CKCommandLine"], exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
