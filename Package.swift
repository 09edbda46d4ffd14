// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ck",
    products: [
        .executable(name: "ck", targets: ["ck"]),
        .library(name: "CKCore", targets: ["CKCore"]),
        .library(name: "CKCommandLine", targets: ["CKCommandLine"]),
    ],
    targets: [
        .systemLibrary(name: "CckSQLite", path: "Sources/CckSQLite"),
        .target(name: "CKCore", dependencies: ["CckSQLite"]),
        .target(name: "CKCommandLine", dependencies: ["CKCore"]),
        .executableTarget(name: "ck", dependencies: ["CKCommandLine"]),
        .testTarget(name: "CKCoreTests", dependencies: ["CKCore"], exclude: ["Corpus"]),
        .testTarget(name: "CKCommandLineTests", dependencies: ["CKCommandLine", "CKCore"], exclude: ["Golden"]),
        .testTarget(name: "EndToEndTests", dependencies: ["ck", "CKCore", "CKCommandLine"], exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
