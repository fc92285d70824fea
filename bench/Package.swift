// swift-tools-version: 6.1
// Benchmarks live in their own package so they build in release mode without slowing the test suite.
// Run: swift run -c release --package-path bench photobench <suite> [options]
import PackageDescription

let package = Package(
    name: "PhotoWorkerBench",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "PhotoWorker", path: "..")],
    targets: [
        .executableTarget(
            name: "photobench",
            dependencies: [.product(name: "Imaging", package: "PhotoWorker")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
