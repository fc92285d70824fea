import JSONRPCTransport

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
    /// The rest of the method's OpenRPC entry (params, result, errors), written in the method's file: the one
    /// statement of its wire contract that the OpenRPC document, MCP's tool list and parameter checks read.
    static var contract: MethodContract { get }
    func handle(_ params: Params, context: RequestContext) async throws -> Result
    /// Whether a request with these raw params waits for a job slot: by default a `compute` method's do. A method
    /// whose request only hands work on (MCP's `tools/call` starting a task, which answers at once while the
    /// task's own job queues) says no for those.
    func usesSlot(for params: JSONValue?) -> Bool
    /// Whether the method estimates its requests' memory (``memoryEstimate(for:context:)``). A compute method that
    /// does takes its place in line once the estimate is made; one that does not, as it arrives, with zero bytes.
    static var estimatesMemory: Bool { get }
    /// The most bytes a request with these params will hold at once while it runs, from what can be known before
    /// the work starts (image headers, sizes asked for), for admission against the memory budget. Runs before the
    /// job waits for a slot and may refuse the request (a missing source, a bad parameter). It may replace a source
    /// it had to fetch to read its header, so that the work does not fetch it again.
    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int
}

extension RPCMethod {
    public static var summary: String { "" }
    public func usesSlot(for params: JSONValue?) -> Bool { Self.cost == .compute }
    public static var estimatesMemory: Bool { false }
    public func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int { 0 }
}

/// A request's params decoded and its memory estimated: what is left is to run it.
public struct PreparedCall: Sendable {
    /// The bytes it will hold while it runs (``RPCMethod/memoryEstimate(for:context:)``).
    public let memoryBytes: Int
    let run: @Sendable (RequestContext) async throws -> RawJSON

    /// Runs the call, its progress and items going through `context`.
    public func callAsFunction(context: RequestContext) async throws -> RawJSON {
        try await run(context)
    }
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
    /// Whether requests take their place in line only once ``prepare(_:context:)`` has estimated their memory.
    public let estimatesMemory: Bool
    let preparer: @Sendable (JSONValue?, RequestContext, _ estimating: Bool) async throws -> PreparedCall
    let usesSlot: @Sendable (JSONValue?) -> Bool

    /// - Parameter checkParams: runs on the raw params before they are decoded (the application's schema rules,
    ///   such as refusing names the method does not take); throws an `RPCError` to refuse them.
    /// - Parameter name: the wire name, when not `M.name` (a method the application names).
    public init<M: RPCMethod>(_ method: M, name: String? = nil, checkParams: (@Sendable (JSONValue) throws -> Void)? = nil) {
        self.name = name ?? M.name
        cost = M.cost
        usesSlot = { method.usesSlot(for: $0) }
        summary = M.summary
        estimatesMemory = M.estimatesMemory
        preparer = { params, context, estimating in
            if let checkParams, let params { try checkParams(params) }
            var decoded = try MethodHandler.decode(M.Params.self, from: params)
            let bytes = estimating && M.estimatesMemory ? try await method.memoryEstimate(for: &decoded, context: context) : 0
            let ready = decoded
            return PreparedCall(memoryBytes: bytes) { context in
                let result = try await method.handle(ready, context: context)
                if result is EmptyResult { return .emptyObject }
                if let raw = result as? RawJSON {
                    assert(!raw.bytes.contains(0x0A), "a RawJSON result must be on one line")
                    return raw
                }
                return try RawJSON(encoding: result)
            }
        }
    }

    /// Decodes and checks the params and, when `estimating` (under a memory budget), estimates the call's memory,
    /// without running it.
    public func prepare(_ params: JSONValue?, context: RequestContext, estimating: Bool = true) async throws -> PreparedCall {
        try await preparer(params, context, estimating)
    }

    /// Runs the method with raw params in `context` (used to dispatch one method from another,
    /// such as MCP's `tools/call`).
    public func call(_ params: JSONValue?, context: RequestContext) async throws -> RawJSON {
        try await preparer(params, context, false)(context: context)
    }

    /// Params are by name: absent means `{}`, an array is refused with -32602. Decoded straight from the
    /// parsed value (``JSONValueDecoder``), never written out and parsed again.
    static func decode<P: Decodable>(_ type: P.Type, from params: JSONValue?) throws -> P {
        let value = params ?? .object([:])
        guard case .object = value else {
            throw RPCError.invalidParams(path: "params", "params must be an object (by name), got \(value.typeName)")
        }
        if P.self == NoParams.self { return NoParams() as! P }
        return try JSONValueDecoder().decode(P.self, from: value)
    }
}

/// The methods a server answers, by name.
public struct MethodTable: Sendable {
    public private(set) var handlers: [String: MethodHandler] = [:]
    /// Handlers of notifications the client sends (MCP's `notifications/initialized`, say): never
    /// answered, never listed as methods.
    public private(set) var notifications: [String: MethodHandler] = [:]

    public init() {}

    public mutating func register<M: RPCMethod>(_ method: M, checkParams: (@Sendable (JSONValue) throws -> Void)? = nil) {
        handlers[M.name] = MethodHandler(method, checkParams: checkParams)
    }

    /// Registers `method` under another wire name than its own.
    mutating func register<M: RPCMethod>(_ method: M, as name: String) {
        handlers[name] = MethodHandler(method, name: name)
    }

    /// Registers a handler for a notification only (a request of that name is -32601).
    public mutating func registerNotification<M: RPCMethod>(_ method: M) {
        notifications[M.name] = MethodHandler(method)
    }

    public subscript(name: String) -> MethodHandler? { handlers[name] }

    public var names: [String] { handlers.keys.sorted() }
}
