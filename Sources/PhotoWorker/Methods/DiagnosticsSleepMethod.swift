import JSONRPC
import JSONRPCTransport

/// `diagnostics.sleep {"ms"}`: waits without holding a core; exercises concurrency and cancel.
public struct DiagnosticsSleepMethod: RPCMethod {
    public static let name = "diagnostics.sleep"
    public static let cost = MethodCost.waiting
    public static let summary = "Wait ms milliseconds without using a core (cancellable)."

    public struct Params: Decodable, Sendable {
        var ms: Int
    }

    public struct Result: Encodable, Sendable {
        var slept: Int
    }

    public init() {}

    public func handle(_ params: Params, context: RequestContext) async throws -> Result {
        try Self.ms.checked(params.ms)
        try await Task.sleep(for: .milliseconds(params.ms))
        return Result(slept: params.ms)
    }
}

extension DiagnosticsSleepMethod {
    /// `ms` of the diagnostics probes: at most an hour.
    static let ms = NumberParam<Int>("ms", 0...3_600_000)

    public static let contract: MethodContract = #"""
        {
          "description": "A scheduler probe for tests and benchmarks: offered only when the worker runs with --diagnostics.",
          "params": [\#(Self.ms.entry(required: true))],
          "result": {
            "name": "Slept",
            "schema": {
              "type": "object",
              "properties": {"slept": {"type": "integer", "minimum": 0}},
              "required": ["slept"],
              "additionalProperties": false
            }
          },
          "errors": [
            {"$ref": "#/components/errors/InvalidParams"},
            {"$ref": "#/components/errors/RequestCancelled"},
            {"$ref": "#/components/errors/ServerCancelled"}
          ]
        }
        """#
}
