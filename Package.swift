// swift-tools-version: 6.1
import PackageDescription

// Linux only: the worker uses Glibc calls, `st_mtim`, /proc and Linux's dispatch (README says so). The
// macOS entry only states the minimum the Swift 6 APIs in use (Synchronization.Mutex) would need.
let package = Package(
    name: "PhotoWorker",
    platforms: [.macOS(.v15)],
    // The worker is the product. The libraries are not offered to other packages: Imaging and
    // CCodecs are always built optimised (unsafeFlags, below), which SwiftPM forbids in targets that
    // other packages depend on; the benchmarks (bench/) are a target of this package instead.
    products: [
        .executable(name: "photoworker", targets: ["photoworker"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // Every setjmp/longjmp and library error of libpng, libjpeg, libwebp, giflib, libheif and lcms2 stays
        // inside this C target.
        .target(
            name: "CCodecs",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [
                .linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("webp"), .linkedLibrary("webpdemux"),
                .linkedLibrary("gif"), .linkedLibrary("heif"), .linkedLibrary("lcms2"),
            ]
        ),
        // Linux system calls glibc does not wrap (openat2, renameat2) for confined file access.
        .target(name: "CSyscalls"),
        .target(
            name: "JSONRPC",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        .target(name: "Imaging", dependencies: ["CCodecs"]),
        // OpenBLAS's CBLAS (Debian's libopenblas-dev), for the inference engine's convolutions.
        .systemLibrary(name: "COpenBLAS"),
        // A small inference engine for fixed convolutional networks (U²-Netp's subject map); knows
        // nothing of JSON-RPC or stickers. Weights converted by scripts/gen-u2netp.py.
        .target(name: "Inference", dependencies: ["COpenBLAS"], resources: [.copy("Resources")]),
        .target(
            name: "PhotoWorker",
            dependencies: ["JSONRPC", "Imaging", "Inference", "CSyscalls", .product(name: "Logging", package: "swift-log")],
            resources: [.copy("Resources")]
        ),
        .executableTarget(
            name: "photoworker",
            dependencies: [
                "PhotoWorker",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // In-process benchmarks: `swift run -c release photobench <suite>` (bench/README.md).
        .executableTarget(name: "photobench", dependencies: ["Imaging", "Inference", "COpenBLAS", "PhotoWorker"], path: "bench/Sources/photobench"),
        .testTarget(name: "JSONRPCTests", dependencies: ["JSONRPC", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "InferenceTests", dependencies: ["Inference", "Imaging"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging"], resources: [.copy("Fixtures")]),
        .testTarget(name: "PhotoWorkerTests", dependencies: ["PhotoWorker"]),
        // Spawned-worker helpers, local HTTP servers, the corpus and hostile-input checks, shared by
        // the end-to-end tests and the in-process tests of the core.
        .target(name: "PhotoWorkerTestSupport", dependencies: ["JSONRPC", "Imaging"], path: "Tests/PhotoWorkerTestSupport"),
        .testTarget(name: "EndToEndTests", dependencies: ["photoworker", "JSONRPC", "Imaging", "PhotoWorkerTestSupport"]),
    ]
)

// Settings applied once to every Swift target (as sourcekit-lsp does).
for target in package.targets where target.type != .system && !["CCodecs", "CSyscalls"].contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings += [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
        .enableUpcomingFeature("InferIsolatedConformances"),
    ]
    // Pixel loops are unusable unoptimised; the library targets are always built with -O
    // so debug test runs exercise the same code at realistic speed.
    if ["Imaging", "Inference"].contains(target.name) {
        settings.append(.unsafeFlags(["-O"]))
    }
    target.swiftSettings = settings
}
