import Foundation
@testable import Inference
import Testing

/// Damaged graphs are refused with `modelDamaged`, never a crash; a small valid one runs.
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
        let out = try network.forward(Tensor(channels: 1, height: 4, width: 4, data: [Float](repeating: 1, count: 16)))
        // A corner sees 4 ones, an edge 6, the middle 9; plus the bias.
        #expect(abs(out.data[0] - 1 / (1 + expf(-5))) < 1e-6)
        #expect(abs(out.data[1] - 1 / (1 + expf(-7))) < 1e-6)
        #expect(abs(out.data[5] - 1 / (1 + expf(-10))) < 1e-6)
    }
}
