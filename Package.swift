// swift-tools-version: 6.1
import PackageDescription

// Linux only (README says so): the worker is built on Glibc, /proc, openat2/renameat2, libcurl's socket
// hook and Debian's codec libraries, so there is no `platforms` line and no Darwin branch to keep honest.
let package = Package(
    name: "PhotoWorker",
    // The worker is the product. The libraries are not offered to other packages: Imaging and
    // CCodecs are always built optimised (unsafeFlags, below), which SwiftPM forbids in targets that
    // other packages depend on; the benchmarks (bench/) are a target of this package instead.
    products: [
        .executable(name: "photoworker", targets: ["photoworker"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ],
    targets: [
        // Every setjmp/longjmp and library error of libpng, libjpeg, libwebp, giflib, libheif, lcms2 and FFmpeg stays
        // inside this C target; PNG is written with libdeflate (about three times zlib's speed), large ones
        // streamed through zlib. Animations: libwebpmux (animated WebP), giflib (GIF), FFmpeg's libavcodec,
        // libavformat, libswscale and libavutil (WebM VP9 with alpha).
        .target(
            name: "CCodecs",
            cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [
                .linkedLibrary("png16"), .linkedLibrary("deflate"), .linkedLibrary("z"), .linkedLibrary("jpeg"),
                .linkedLibrary("webp"), .linkedLibrary("webpdemux"), .linkedLibrary("gif"), .linkedLibrary("heif"),
                .linkedLibrary("lcms2"), .linkedLibrary("webpmux"),
                // Video (cc_video.c, cc_webm.c): only these four of FFmpeg's libraries.
                .linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"), .linkedLibrary("avutil"),
            ]
        ),
        // Linux system calls glibc does not wrap (openat2, renameat2) for confined file access.
        .target(name: "CSyscalls"),
        // libcurl for URL sources: every libcurl call and error stays inside this C target.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        // JSON-RPC in two layers: the transport (JSON values, messages, framing, the reader and writer
        // threads) and the server (registry, runner, limiter, dialects, lifecycle). Neither knows the application.
        // The one way to park a task until something happens (a slot, a block, an answer, an open gate): a waiter
        // queue's state machine and its continuation front. Its own target because JSONRPC, Imaging and Inference
        // all park tasks and none may import another (Imaging and Inference know nothing of JSON-RPC).
        .target(name: "Waiting"),
        .target(name: "JSONRPCTransport", dependencies: ["Waiting", "CSyscalls"]),
        .target(
            name: "JSONRPC",
            dependencies: ["JSONRPCTransport", "Waiting", .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "UnixSignals", package: "swift-service-lifecycle")]
        ),
        // The innermost pixel loops of the inference engine and the sticker's maps, compiled per instruction set
        // and chosen at run time (Swift cannot do that per function); no FMA contraction, so every variant
        // computes the same floats.
        .target(name: "CKernels", cSettings: [.unsafeFlags(["-O3", "-ffp-contract=off"])]),
        // Where pixel work runs: the compute pool and its leases, the stage runners, speculation, cancellation and the
        // one vocabulary (`Parallel`) algorithms use to say what may run at once. Knows no pixels and no networks.
        .target(name: "Compute", dependencies: ["Waiting", "CSyscalls"]),
        // Finding the resource bundles beside the executable; their names spelled once.
        .target(name: "BundledResources"),
        // Resources: OpenCV's frontal face cascade (scripts/gen-face-cascade.py).
        .target(name: "Imaging", dependencies: ["Compute", "CCodecs", "CKernels", "BundledResources"], resources: [.copy("Resources")]),
        // OpenBLAS's CBLAS (Debian's libopenblas-dev): only photobench's peer for the engine's own matrix product
        // (`photobench gemm`); the worker does not link it.
        .systemLibrary(name: "COpenBLAS"),
        // A small inference engine for fixed convolutional networks (U²-Netp's subject map); knows
        // nothing of JSON-RPC or stickers. Weights converted by scripts/gen-u2netp.py.
        .target(name: "Inference", dependencies: ["Compute", "CKernels", "Waiting", "BundledResources"], resources: [.copy("Resources")]),
        .target(
            name: "PhotoWorker",
            dependencies: ["JSONRPC", "JSONRPCTransport", "Compute", "Imaging", "Inference", "Waiting", "CSyscalls", "CCurl", "BundledResources",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            resources: [.copy("Resources")]
        ),
        .executableTarget(
            name: "photoworker",
            dependencies: [
                "PhotoWorker", "JSONRPC", "JSONRPCTransport", "CSyscalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // In-process benchmarks: `swift run -c release photobench <suite>` (bench/README.md).
        .executableTarget(name: "photobench", dependencies: ["Compute", "Imaging", "Inference", "COpenBLAS", "PhotoWorker"], path: "bench/Sources/photobench"),
        // Test support in C: a WebM read back through FFmpeg (CWebMInspection.h), kept out of the worker's CCodecs.
        .target(name: "CWebMInspection", dependencies: ["CCodecs"], path: "Tests/CWebMInspection"),
        // Waits in tests that fail, saying what they waited for, when their deadline passes.
        .target(name: "Deadlines", path: "Tests/Deadlines"),
        .testTarget(name: "WaitingTests", dependencies: ["Waiting", "Deadlines"]),
        .testTarget(name: "JSONRPCTransportTests", dependencies: ["JSONRPCTransport", "Deadlines"]),
        .testTarget(name: "JSONRPCTests", dependencies: ["JSONRPC", "JSONRPCTransport", "Deadlines", .product(name: "Logging", package: "swift-log"),
                                                  .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        .testTarget(name: "ComputeTests", dependencies: ["Compute", "Deadlines"]),
        .testTarget(name: "InferenceTests", dependencies: ["Inference", "Compute", "CKernels", "Imaging", "Deadlines"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "Compute", "CKernels", "CWebMInspection", "Deadlines"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "PhotoWorkerTests", dependencies: ["PhotoWorker", "Compute", "JSONRPC", "JSONRPCTransport", "PhotoWorkerTestSupport",
                                                      "CWebMInspection", "Deadlines"]),
        // Spawned-worker helpers, local HTTP servers, the corpus and hostile-input checks, shared by
        // the end-to-end tests and the in-process tests of the core.
        .target(name: "PhotoWorkerTestSupport", dependencies: ["JSONRPCTransport", "Imaging"], path: "Tests/PhotoWorkerTestSupport"),
        .testTarget(name: "EndToEndTests", dependencies: ["photoworker", "JSONRPCTransport", "Imaging", "PhotoWorkerTestSupport", "BundledResources"]),
    ]
)

// Settings applied once to every Swift target (as sourcekit-lsp does).
for target in package.targets where target.type != .system && !["CCodecs", "CSyscalls", "CCurl", "CKernels", "CWebMInspection"].contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings += [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
        .enableUpcomingFeature("InferIsolatedConformances"),
    ]
    // Pixel loops are unusable unoptimised; the library targets are always built with -O
    // so debug test runs exercise the same code at realistic speed.
    if ["Compute", "Imaging", "Inference"].contains(target.name) {
        settings.append(.unsafeFlags(["-O"]))
    }
    target.swiftSettings = settings
}
