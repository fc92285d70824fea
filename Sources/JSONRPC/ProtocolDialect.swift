import JSONRPCTransport

/// A protocol the application speaks over the same connection besides the native one (the worker's
/// MCP adapter, say). JSONRPC offers the hooks and knows nothing of the protocol itself: the
/// dialect recognises itself in `initialize`, answers it, names its cancel notification, and
/// decides how a request's progress goes out.
public protocol ProtocolDialect: Sendable {
    /// A short name, reported in ``ClientSession/dialect`` (`mcp`).
    var name: String { get }
    /// Whether an `initialize` with this `protocolVersion` selects the dialect.
    func recognises(protocolVersion: String) -> Bool
    /// The `initialize` result in this dialect.
    func initializeResult(protocolVersion: String, server: ServerIdentity, policy: JSONValue?) -> RawJSON
    /// The cancel notification of this dialect (its method and the params key of the request id).
    /// A request it cancels gets no response once the session speaks the dialect (``CancelRule``).
    var cancelNotification: (method: String, idKey: String) { get }
    /// How a request's progress goes out, from its params; nil for the native `$/progress`.
    func progressReporter(for params: JSONValue?) -> (any ProgressReporter)?
    /// The session a request other than `initialize` opens by itself while none is chosen: a stateless
    /// revision's first message (MCP 2026-07-28's `server/discover`, or a request carrying its per-request
    /// envelope) selects the dialect as `initialize` would. nil (the default): the request opens none.
    func session(openedBy method: String, params: JSONValue?) -> ClientSession?
}

extension ProtocolDialect {
    public func session(openedBy method: String, params: JSONValue?) -> ClientSession? { nil }
}

/// Who the server is, for a dialect's `initialize` reply.
public struct ServerIdentity: Sendable {
    public var name: String
    public var version: String

    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

/// Turns one request's progress into a dialect's notifications; keeps whatever per-request state
/// it needs (monotonic values, throttling).
public protocol ProgressReporter: Sendable {
    /// The notification for progress `done` of `total` (`done` nil: one more item finished);
    /// nil drops the update.
    func notification(done: Int?, total: Int?, message: String?) -> (method: String, params: JSONValue)?
    /// One finished child of a batch, as the method encoded it; a reporter that gathers a batch's items for
    /// the final answer keeps it (the default drops it). Called before ``notification(done:total:message:)``.
    func item(index: Int, result: RawJSON)
    /// One failed child of a batch.
    func item(index: Int, error: RPCError)
}

extension ProgressReporter {
    public func item(index: Int, result: RawJSON) {}
    public func item(index: Int, error: RPCError) {}
}
