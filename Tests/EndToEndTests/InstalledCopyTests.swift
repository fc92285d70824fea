import BundledResources
import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// A worker copied out of the build folder uses the resource bundles that travel with it and nothing of the
/// checkout it was built from: with its bundles the sticker cut is the network's, without them the worker says
/// what is missing on stderr and still serves (classical cut; the OpenRPC document is compiled in) instead of
/// reaching back into the source tree or stopping.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct InstalledCopyTests {
    static let bundles = BundledResource.Bundle.allCases.map(\.directoryName)

    /// The names the worker looks for are the bundles SwiftPM made: a renamed package or target fails here, not in
    /// an installed copy that quietly falls back.
    @Test func theBundlesTheWorkerLooksForAreTheOnesTheBuildMade() {
        let built = WorkerProcess.binary.deletingLastPathComponent()
        for bundle in Self.bundles {
            #expect(FileManager.default.fileExists(atPath: built.appendingPathComponent(bundle).path), "\(bundle) is not in \(built.path)")
        }
    }

    /// A folder outside the build area holding a copy of the worker, with or without its bundles.
    static func install(withBundles: Bool, _ name: String = #function) throws -> URL {
        let dir = URL(fileURLWithPath: try Corpus.scratch("installed-\(name)"))
        let fm = FileManager.default
        try fm.copyItem(at: WorkerProcess.binary, to: dir.appendingPathComponent("photoworker"))
        if withBundles {
            for b in bundles {
                try fm.copyItem(at: WorkerProcess.binary.deletingLastPathComponent().appendingPathComponent(b),
                                to: dir.appendingPathComponent(b))
            }
        }
        return dir.appendingPathComponent("photoworker")
    }

    static func sticker(_ w: WorkerProcess) async throws -> JSONValue {
        try await w.call(1, "image.sticker", ["source": ["path": .string(Corpus.photo("girl-1.jpg"))], "output": ["inline": true]])
    }

    @Test func aCopyWithItsBundlesCutsWithTheNetwork() async throws {
        let w = try WorkerProcess(executable: try Self.install(withBundles: true))
        let r = try await Self.sticker(w)
        #expect(r["result"]?["segmenter"] == "network", "\(r["error"] ?? r["result"]?["segmenter"] ?? .null)")
        #expect(r["result"]?["segmenterReason"] == nil, "\(r["result"]?["segmenterReason"] ?? .null)")
        let discover = try await w.call(2, "rpc.discover")
        #expect(discover["result"]?["methods"]?.arrayCount ?? 0 > 10)
        #expect(!w.stderr.contains("resource missing"), "\(w.stderr)")
    }

    /// Without its bundles every result that names a segmenter says why it is the classical cut (and that no faces
    /// were looked for): never a silent fallback. Asked for `classical`, only the missing faces are said.
    @Test func aCopyWithoutBundlesSaysWhyInEveryResult() async throws {
        let w = try WorkerProcess(executable: try Self.install(withBundles: false))
        let photo = JSONValue.string(Corpus.photo("girl-1.jpg"))
        let results: [(String, JSONValue)] = [
            ("image.sticker", try await Self.sticker(w)),
            ("image.subjects", try await w.call(2, "image.subjects", ["source": ["path": photo]])),
            ("photo.process", try await w.call(3, "photo.process", ["source": ["path": photo],
                                                                   "output": ["dir": .string(try Corpus.scratch("no-bundles-out"))]])),
            ("image.animatedSticker", try await w.call(4, "image.animatedSticker", [
                "source": ["path": .string(Corpus.root.appendingPathComponent("motion/cutout.gif").path)], "duration": 0.2, "size": 64,
                "output": ["inline": true, "format": "webp"]])),
        ]
        for (method, reply) in results {
            let reason = reply["result"]?["segmenterReason"]?.stringValue ?? ""
            #expect(reply["result"]?["segmenter"] == "classical", "\(method): \(reply["error"] ?? reply["result"]?["segmenter"] ?? .null)")
            #expect(reason.contains("the network could not be loaded") && reason.contains("the classical cut ran instead")
                    && reason.contains("no faces were looked for"), "\(method): \(reason)")
        }
        let asked = try await w.call(5, "image.sticker", ["source": ["path": photo], "output": ["inline": true],
                                                         "segmenter": "classical"])
        let reason = asked["result"]?["segmenterReason"]?.stringValue ?? ""
        #expect(!reason.contains("network") && reason.contains("no faces"), "\(reason)")
        #expect(await eventually { w.stderr.contains("resource missing: PhotoWorker_Inference.resources") }, "stderr: \(w.stderr)")
    }

    @Test func aCopyWithoutBundlesNeverReadsTheCheckout() async throws {
        let w = try WorkerProcess(executable: try Self.install(withBundles: false))
        let r = try await Self.sticker(w)
        #expect(r["result"]?["segmenter"] == "classical", "\(r["error"] ?? r["result"]?["segmenter"] ?? .null)")
        #expect(try await w.call(2, "ping")["result"] == [:])
        let discover = try await w.call(3, "rpc.discover")
        #expect(discover["result"]?["methods"]?.arrayCount ?? 0 > 10, "\(discover)")
        for bundle in Self.bundles {
            #expect(await eventually { w.stderr.contains("resource missing: \(bundle)") }, "stderr: \(w.stderr)")
        }
    }
}
