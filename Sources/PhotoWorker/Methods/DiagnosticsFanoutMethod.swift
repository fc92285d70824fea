import JSONRPC
import JSONRPCTransport

/// `diagnostics.fanout {"children", "ms"}`: N child tasks in a TaskGroup, each streamed as an
/// item notification the moment it finishes, then `{"children": N}`.
public struct DiagnosticsFanoutMethod: RPCMethod {
    public static let name = "diagnostics.fanout"
    public static let cost = MethodCost.waiting
    public static let summary = "Run N child tasks, stream each result as it finishes."

    public struct Params: Decodable, Sendable {
        var children: Int
        /// Optional (default 0): synthesized Decodable ignores property defaults, hence the optional.
        var ms: Int?
    }

    public struct Result: Encodable, Sendable {
        var children: Int
    }

    struct ChildResult: Encodable, Sendable {
        var child: Int
        var sleptMs: Int
    }

    public init() {}

    public func handle(_ params: Params, context: RequestContext) async throws -> Result {
        try Self.children.checked(params.children)
        let ms = try Self.ms.value(params.ms)
        try await withThrowingTaskGroup(of: ChildResult.self) { group in
            for child in 0..<params.children {
                group.addTask {
                    // Stagger the children so completion order differs from start order.
                    let delay = ms == 0 ? 0 : (ms * ((child * 7919) % params.children + 1)) / max(1, params.children)
                    try await Task.sleep(for: .milliseconds(delay))
                    return ChildResult(child: child, sleptMs: delay)
                }
            }
            for try await result in group {
                await context.item(index: result.child, result: result)
            }
        }
        return Result(children: params.children)
    }
}

extension DiagnosticsFanoutMethod {
    static let children = NumberParam<Int>("children", 0...100_000)
    /// The longest child's sleep; none by default.
    static let ms = DiagnosticsSleepMethod.ms.defaulting(to: 0)
}

extension DiagnosticsFanoutMethod {
    public static let contract: MethodContract = #"""
        {
          "description": "Run N child tasks (staggered sleeps of up to ms), stream each as an item the moment it finishes, then reply.\n\nA scheduler probe for tests and benchmarks: offered only when the worker runs with --diagnostics.",
          "params": [\#(Self.children.entry(required: true)), \#(Self.ms.entry())],
          "result": {
            "name": "Fanout",
            "schema": {
              "type": "object",
              "properties": {"children": {"type": "integer", "minimum": 0}},
              "required": ["children"],
              "additionalProperties": false
            }
          },
          "errors": [
            {"$ref": "#/components/errors/InvalidParams"},
            {"$ref": "#/components/errors/RequestCancelled"},
            {"$ref": "#/components/errors/ServerCancelled"}
          ],
          "x-streams": {
            "item": {
              "type": "object",
              "properties": {"child": {"type": "integer", "minimum": 0}, "sleptMs": {"type": "integer", "minimum": 0}},
              "required": ["child", "sleptMs"],
              "additionalProperties": false
            }
          }
        }
        """#
}
