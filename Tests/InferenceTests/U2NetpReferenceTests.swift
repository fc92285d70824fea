@testable import Compute
import Foundation
import Imaging
@testable import Inference
import Testing

/// U²-Netp in Swift against onnxruntime's output on the same inputs (Fixtures/u2netp-reference*.json,
/// written by scripts/gen-u2netp.py): corpus PNGs sampled to 320x320 (the graph's size) and to
/// 256x256 (the graph resized) at pixel centres, normalised as rembg does, every 8th pixel of the
/// final map compared.
@Suite(.timeLimit(.minutes(10)))
struct U2NetpReferenceTests {
    struct Reference: Decodable {
        var photo: String
        var step: Int
        var mean: Double
        var samples: [Float]
    }

    struct Fixture: Decodable {
        var size: Int
        var mean: [Float]
        var std: [Float]
        var references: [Reference]
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ name: String) throws -> Fixture {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }

    /// The input the script fed onnxruntime, built the same way from our own PNG decode.
    static func input(_ photo: String, fixture: Fixture) throws -> Tensor {
        let bytes = try Data(contentsOf: root.appendingPathComponent("corpus/photos/\(photo)"))
        let image = try ImageCodec.decode(Array(bytes), on: .inTurn).image
        return .normalizedRGB(rgba: image.pixels, width: image.width, height: image.height, size: fixture.size,
                              mean: fixture.mean, std: fixture.std)
    }

    @Test(arguments: ["u2netp-reference", "u2netp-reference-256"])
    func theMapMatchesOnnxruntimeWithin1e3(_ name: String) throws {
        let fixture = try Self.fixture(name)
        let network = try Network.u2netp.get().resized(toHeight: fixture.size, width: fixture.size)
        #expect(!fixture.references.isEmpty)
        for reference in fixture.references {
            let map = try network.forward(try Self.input(reference.photo, fixture: fixture), parallel: InTurnLoop())
            #expect(map.channels == 1 && map.height == fixture.size && map.width == fixture.size)
            var worst: Float = 0
            var i = 0
            for y in stride(from: 0, to: fixture.size, by: reference.step) {
                for x in stride(from: 0, to: fixture.size, by: reference.step) {
                    worst = max(worst, abs(map.data[y * fixture.size + x] - reference.samples[i]))
                    i += 1
                }
            }
            #expect(i == reference.samples.count)
            #expect(worst <= 1e-3, "\(reference.photo): max abs difference \(worst)")
            let mean = map.data.reduce(0, +) / Float(map.data.count)
            #expect(abs(Double(mean) - reference.mean) <= 1e-3, "\(reference.photo): mean \(mean) vs \(reference.mean)")
        }
    }

    @Test func aWrongInputShapeIsRefused() throws {
        let network = try Network.u2netp.get()
        #expect(throws: InferenceError.self) { try network.forward(Tensor(channels: 3, height: 10, width: 10), parallel: InTurnLoop()) }
    }

    @Test func cancellationStopsTheForwardPass() throws {
        let network = try Network.u2netp.get()
        let loop = ConvolutionTests.CancellingLoop(cancelAfter: 5)
        #expect(throws: CancellationError.self) {
            try network.forward(Tensor(channels: 3, height: 320, width: 320), parallel: loop)
        }
        #expect(loop.indicesRun == 5, "bands run: \(loop.indicesRun)")
    }
}
