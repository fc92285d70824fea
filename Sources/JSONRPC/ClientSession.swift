import JSONRPCTransport

/// What the client said of itself in `initialize` (or in the first request of a stateless dialect).
public struct ClientSession: Sendable, Equatable {
    /// The ``ProtocolDialect`` the client initialised in (its `name`), nil for the native protocol.
    public var dialect: String?
    /// The client's `capabilities` object, as sent (MCP: `roots`, `sampling`, ...).
    public var capabilities: JSONValue?
    /// The `protocolVersion` the session was opened with (`initialize`'s, or a stateless revision's envelope's).
    public var protocolVersion: String?

    public init(dialect: String? = nil, capabilities: JSONValue? = nil, protocolVersion: String? = nil) {
        self.dialect = dialect
        self.capabilities = capabilities
        self.protocolVersion = protocolVersion
    }
}

/// The application's view of the session's start, so JSONRPC can stay ignorant of what a session
/// means to it (PhotoWorker confines MCP sessions, for instance).
public protocol SessionDelegate: Sendable {
    /// Called once `initialize` has been understood, before its reply is written.
    func clientInitialized(_ session: ClientSession)
    /// Facts `initialize` and `worker.stats` report under `policy` (nil: none).
    var policyFacts: JSONValue? { get }
}
