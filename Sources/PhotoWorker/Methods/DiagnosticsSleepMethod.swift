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
        guard (0...3_600_000).contains(params.ms) else {
            throw RPCError.invalidParams(path: "ms", "must be between 0 and 3600000")
        }
        try await Task.sleep(for: .milliseconds(params.ms))
        return Result(slept: params.ms)
    }
}
