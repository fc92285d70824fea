import Compute
import Foundation
@testable import Inference
import Testing

/// Damaged graphs are refused with `modelDamaged`, never a crash; a small valid one runs.
@Suite(.timeLimit(.minutes(10)))
struct NetworkGraphTests {
    static func graph(_ ops: String, tensors: Int = 3, parameters: Int = 0) throws -> NetworkGraph {
        let json = """
        {"name": "t", "input": {"tensor": 0, "channels": 1, "height": 4, "width": 4}, "output": \(tensors - 1),
         "tensors": \(tensors), "parameters": \(parameters), "ops": [\(ops)]}
        """
        return try JSONDecoder().decode(NetworkGraph.self, from: Data(json.utf8))
    }

    @Test(arguments: [
        #"{"op": "relu", "in": [], "out": 2}"#,
        #"{"op": "relu", "in": 7, "out": 2}"#,
        #"{"op": "add", "in": [0], "out": 2}"#,
        #"{"op": "resize", "in": 0, "out": 2}"#,
        #"{"op": "conv", "in": 0, "out": 2, "cin": 1, "cout": 1, "k": 3, "weights": 0, "bias": 9}"#,
    ])
    func aDamagedGraphIsRefused(op: String) throws {
        let graph = try Self.graph(op)
        #expect(throws: InferenceError.self) { try Network(graph: graph, weights: []) }
    }

    @Test func aSmallGraphRuns() throws {
        // A 3x3 conv with an all-ones filter and bias 1, then a sigmoid: 4x4 input of ones.
        let graph = try Self.graph("""
            {"op": "conv", "in": 0, "out": 1, "cin": 1, "cout": 1, "k": 3, "weights": 0, "bias": 9, "relu": true},
            {"op": "sigmoid", "in": 1, "out": 2}
            """, parameters: 10)
        let network = try Network(graph: graph, weights: [Float](repeating: 1, count: 10))
        let out = try network.forward(Tensor(channels: 1, height: 4, width: 4, data: [Float](repeating: 1, count: 16)), parallel: InTurnLoop())
        // A corner sees 4 ones, an edge 6, the middle 9; plus the bias.
        #expect(abs(out.data[0] - 1 / (1 + expf(-5))) < 1e-6)
        #expect(abs(out.data[1] - 1 / (1 + expf(-7))) < 1e-6)
        #expect(abs(out.data[5] - 1 / (1 + expf(-10))) < 1e-6)
    }

    /// A pool, then a resize back to the input's size: resized to 9x6, the resize follows the input
    /// (level 0), and a resize to a size that is no pooling level is refused.
    @Test func aResizedNetworkResizesToTheSameLevels() throws {
        let network = try Network(graph: try Self.graph("""
            {"op": "maxpool", "in": 0, "out": 1},
            {"op": "resize", "in": 1, "out": 2, "height": 4, "width": 4}
            """), weights: [])
        let resized = try network.resized(toHeight: 9, width: 6)
        #expect(resized.inputHeight == 9 && resized.inputWidth == 6)
        let out = try resized.forward(Tensor(channels: 1, height: 9, width: 6, data: (0..<54).map(Float.init)), parallel: InTurnLoop())
        #expect(out.height == 9 && out.width == 6)
        #expect(try network.resized(toHeight: 4, width: 4).forward(Tensor(channels: 1, height: 4, width: 4), parallel: InTurnLoop()).height == 4)

        let odd = try Network(graph: try Self.graph(#"{"op": "resize", "in": 0, "out": 2, "height": 3, "width": 4}"#), weights: [])
        #expect(throws: InferenceError.self) { try odd.resized(toHeight: 8, width: 8) }
        #expect(throws: InferenceError.self) { try network.resized(toHeight: 0, width: 8) }
    }

    /// U²-Netp at 256: every resize goes to one of 256's pooling levels.
    @Test func u2netpResizesToTheLevelsOfItsNewInput() throws {
        let network = try Network.u2netp.get().resized(toHeight: 256, width: 256)
        #expect(network.inputHeight == 256 && network.inputWidth == 256)
        let targets = network.steps.compactMap { step -> Int? in
            if case .resize(_, _, let h, let w) = step, h == w { return h }
            if case .resize = step { return -1 }
            return nil
        }
        #expect(!targets.isEmpty && Set(targets).isSubset(of: [256, 128, 64, 32, 16, 8]))
    }
}
