import JSONRPCTransport

/// `initialize`: who the server is, what it offers and its limits. Optional: scripts may skip it.
///
/// A `protocolVersion` that one of the configured ``ProtocolDialect``s recognises makes the session
/// speak that dialect: the dialect answers, and its conventions apply from then on. Other clients
/// get the native reply.
struct InitializeMethod: RPCMethod {
    static let name = "initialize"
    static let cost = MethodCost.immediate
    static let summary = "Server name, version, protocol version, methods and limits."

    struct Params: Decodable, Sendable {
        var protocolVersion: String?
        var clientInfo: JSONValue?
        var capabilities: JSONValue?
    }

    struct MethodInfo: Encodable, Sendable {
        var name: String
        var cost: MethodCost
        var summary: String
    }

    struct NativeResult: Encodable, Sendable {
        var serverInfo: [String: String]
        var protocolVersion: String
        var methods: [MethodInfo]
        var limits: [String: JSONValue]
        var policy: JSONValue?
    }

    let configuration: ServerConfiguration
    let lifecycle: Lifecycle
    let peer: Peer
    let methods: @Sendable () -> [MethodInfo]

    func handle(_ params: Params, context: RequestContext) async throws -> RawJSON {
        let version = params.protocolVersion
        let dialect = version.flatMap { v in configuration.dialects.first { $0.recognises(protocolVersion: v) } }
        let session = ClientSession(dialect: dialect?.name, capabilities: params.capabilities, protocolVersion: version)
        await peer.setSession(session)
        await lifecycle.select(dialect)
        configuration.sessionDelegate?.clientInitialized(session)
        let policy = configuration.sessionDelegate?.policyFacts
        if let dialect, let version {
            return dialect.initializeResult(
                protocolVersion: version, server: ServerIdentity(name: configuration.name, version: configuration.version),
                policy: policy)
        }
        var limits: [String: JSONValue] = [
            "maxMessageBytes": .int(configuration.maxMessageBytes),
            // The 1.0 name of the same limit, kept for clients written against it.
            "maxLineBytes": .int(configuration.maxMessageBytes),
            "maxJobs": .int(configuration.maxJobs),
            "maxQueue": .int(configuration.maxQueue),
            "drainTimeoutSeconds": .int(Int(configuration.drainTimeout.components.seconds)),
        ]
        limits.merge(configuration.extraLimits) { _, new in new }
        return try RawJSON(encoding: NativeResult(
            serverInfo: ["name": configuration.name, "version": configuration.version],
            protocolVersion: configuration.protocolVersion, methods: methods(), limits: limits, policy: policy))
    }
}
