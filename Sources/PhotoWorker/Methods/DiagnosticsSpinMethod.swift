import Compute
import Imaging
import JSONRPC
import JSONRPCTransport

/// `diagnostics.spin {"ms"}`: burns one core, checking cancellation about every 0.1 ms, the way
/// pixel loops check it per band of rows.
public struct DiagnosticsSpinMethod: RPCMethod {
    public static let name = "diagnostics.spin"
    public static let cost = MethodCost.compute
    public static let summary = "Burn CPU for ms milliseconds in a cancellable loop."

    public struct Params: Decodable, Sendable {
        var ms: Int
    }

    public struct Result: Encodable, Sendable {
        var spun: Int
        var iterations: Int
    }

    let compute: ComputePool

    public init(compute: ComputePool) {
        self.compute = compute
    }

    public func handle(_ params: Params, context: RequestContext) async throws -> Result {
        try DiagnosticsSleepMethod.ms.checked(params.ms)
        let ms = params.ms
        return try await compute.run(lease: ComputeLease(serving: context)) { loop in try Self.spin(milliseconds: ms, on: loop) }
    }

    static func spin(milliseconds: Int, on loop: some ParallelLoop) throws -> Result {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        var iterations = 0
        while ContinuousClock.now < deadline {
            for _ in 0..<2_000 {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17
            }
            iterations += 1
            try loop.checkCancellation()
        }
        return Result(spun: milliseconds, iterations: iterations + Int(x & 1))
    }
}

extension DiagnosticsSpinMethod {
    public static let contract: MethodContract = #"""
        {
          "description": "A scheduler probe for tests and benchmarks: offered only when the worker runs with --diagnostics.",
          "params": [\#(DiagnosticsSleepMethod.ms.entry(required: true))],
          "result": {
            "name": "Spun",
            "schema": {
              "type": "object",
              "properties": {
                "spun": {"type": "integer", "minimum": 0},
                "iterations": {"type": "integer", "minimum": 0}
              },
              "required": ["spun", "iterations"],
              "additionalProperties": false
            }
          },
          "errors": [
            {"$ref": "#/components/errors/InvalidParams"},
            {"$ref": "#/components/errors/RequestCancelled"},
            {"$ref": "#/components/errors/ServerCancelled"},
            {"$ref": "#/components/errors/Overloaded"}
          ]
        }
        """#
}
