import Foundation

/// How a method is scheduled.
public enum MethodCost: String, Sendable, Codable {
    /// Cheap bookkeeping (`ping`, `jobs.list`): runs at once, never waits behind heavy work.
    case immediate
    /// Mostly waiting (a timer, the network): runs at once without taking a job slot.
    case waiting
    /// CPU work: waits for one of `--max-jobs` slots in FIFO order (bounded by `--max-queue`) and
    /// runs on the worker's compute threads, off the protocol's threads.
    case compute
}

/// One JSON-RPC method: its name, typed params and result, and its handler, kept together.
public protocol RPCMethod: Sendable {
    associatedtype Params: Decodable & Sendable
    associatedtype Result: Encodable & Sendable
    /// The wire name, e.g. `image.thumbnail`.
    static var name: String { get }
    static var cost: MethodCost { get }
    /// One line for `initialize`'s method list and `--help`.
    static var summary: String { get }
    func handle(_ params: Params, context: RequestContext) async throws -> Result
}

extension RPCMethod {
    public static var summary: String { "" }
}

/// Params for methods that take none; any object is accepted.
public struct NoParams: Codable, Sendable {
    public init() {}
}

/// Result for methods that return `{}`.
public struct EmptyResult: Codable, Sendable {
    public init() {}
}

/// A type-erased method: decoding, the call and encoding in one closure.
public struct MethodHandler: Sendable {
    public let name: String
    public let cost: MethodCost
    public let summary: String
    let run: @Sendable (JSONValue?, RequestContext) async throws -> RawJSON

    public init<M: RPCMethod>(_ method: M) {
        name = M.name
        cost = M.cost
        summary = M.summary
        run = { params, context in
            let decoded = try MethodHandler.decode(M.Params.self, from: params)
            let result = try await method.handle(decoded, context: context)
            if result is EmptyResult { return .emptyObject }
            return try RawJSON(encoding: result)
        }
    }

    /// Runs the method with raw params in `context` (used to dispatch one method from another,
    /// such as MCP's `tools/call`).
    public func call(_ params: JSONValue?, context: RequestContext) async throws -> RawJSON {
        try await run(params, context)
    }

    /// Params are by name: absent means `{}`, an array is refused with -32602.
    static func decode<P: Decodable>(_ type: P.Type, from params: JSONValue?) throws -> P {
        if P.self == NoParams.self { return NoParams() as! P }
        let value = params ?? .object([:])
        guard case .object = value else {
            throw RPCError.invalidParams(path: "params", "params must be an object (by name), got \(value.typeName)")
        }
        return try JSONDecoder().decode(P.self, from: Data(value.serialized))
    }
}

/// The methods a server answers, by name.
public struct MethodTable: Sendable {
    public private(set) var handlers: [String: MethodHandler] = [:]

    public init() {}

    public mutating func register<M: RPCMethod>(_ method: M) {
        handlers[M.name] = MethodHandler(method)
    }

    public subscript(name: String) -> MethodHandler? { handlers[name] }

    public var names: [String] { handlers.keys.sorted() }
}
