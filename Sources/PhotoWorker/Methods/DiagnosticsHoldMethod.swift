import JSONRPC
import JSONRPCTransport

/// `diagnostics.hold {"ms", "bytes"}`: a compute job that says it will hold `bytes` of memory and waits `ms`, so
/// the tests can see the memory budget admit, queue, pass and refuse jobs without real images of those sizes.
struct DiagnosticsHoldMethod: RPCMethod {
    static let name = "diagnostics.hold"
    static let cost = MethodCost.compute
    static let summary = "Claim `bytes` of the memory budget and hold them for ms milliseconds (cancellable)."

    struct Params: Decodable, Sendable {
        var ms: Int
        var bytes: Int
    }

    struct Result: Encodable, Sendable {
        var held: Int
    }

    static let estimatesMemory = true

    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        try Self.bytes.checked(params.bytes)
        try Self.checkMs(params.ms)
        return params.bytes
    }

    static let bytes = NumberParam<Int>("bytes", lower: .inclusive(0), message: "must not be negative")

    static func checkMs(_ ms: Int) throws {
        try DiagnosticsSleepMethod.ms.checked(ms)
    }

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        try Self.checkMs(params.ms)
        try await Task.sleep(for: .milliseconds(params.ms))
        return Result(held: params.bytes)
    }
}

extension DiagnosticsHoldMethod {
    static let contract: MethodContract = #"""
        {
          "description": "A memory-budget probe for tests: offered only when the worker runs with --diagnostics.",
          "params": [
            \#(DiagnosticsSleepMethod.ms.entry(required: true)),
            \#(Self.bytes.entry(required: true))
          ],
          "result": {
            "name": "Held",
            "schema": {
              "type": "object",
              "properties": {"held": {"type": "integer", "minimum": 0}},
              "required": ["held"],
              "additionalProperties": false
            }
          },
          "errors": [
            {"$ref": "#/components/errors/InvalidParams"},
            {"$ref": "#/components/errors/RequestCancelled"},
            {"$ref": "#/components/errors/ServerCancelled"},
            {"$ref": "#/components/errors/Overloaded"},
            {"$ref": "#/components/errors/OverMemoryBudget"}
          ]
        }
        """#
}
