/// `initialize`: who the server is, what it offers and its limits. Optional: scripts may skip it.
///
/// A `protocolVersion` in MCP's date form (`2025-06-18`) makes the session an MCP session: the
/// reply takes MCP's shape and MCP's conventions apply from then on (a request cancelled with
/// `notifications/cancelled` gets no response). Other clients get the native reply.
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

    /// MCP revisions this server speaks, oldest first.
    static let mcpVersions = ["2024-11-05", "2025-03-26", "2025-06-18"]

    let configuration: ServerConfiguration
    let lifecycle: Lifecycle
    let peer: Peer
    let methods: @Sendable () -> [MethodInfo]

    func handle(_ params: Params, context: RequestContext) async throws -> JSONValue {
        let isMCP = params.protocolVersion.map(Self.looksLikeMCP) ?? false
        let session = ClientSession(isMCP: isMCP, capabilities: params.capabilities)
        peer.setSession(session)
        configuration.sessionDelegate?.clientInitialized(session)
        if let v = params.protocolVersion, isMCP {
            lifecycle.speaksMCP = true
            let agreed = Self.mcpVersions.contains(v) ? v : Self.mcpVersions.last!
            var result: [String: JSONValue] = [
                "protocolVersion": .string(agreed),
                "capabilities": configuration.mcpCapabilities,
                "serverInfo": ["name": .string(configuration.name), "version": .string(configuration.version)],
            ]
            if let instructions = configuration.mcpInstructions { result["instructions"] = .string(instructions) }
            if let policy = configuration.sessionDelegate?.policyFacts { result["_meta"] = ["policy": policy] }
            return .object(result)
        }
        let native = try nativeResult()
        return try JSONParser.parse(RawJSON(encoding: native).bytes)
    }

    /// MCP versions are dates: `YYYY-MM-DD`.
    static func looksLikeMCP(_ v: String) -> Bool {
        let parts = v.split(separator: "-")
        return parts.count == 3 && parts[0].count == 4 && parts.allSatisfy { $0.allSatisfy(\.isNumber) }
    }

    private func nativeResult() throws -> NativeResult {
        var limits: [String: JSONValue] = [
            "maxLineBytes": .int(configuration.maxLineBytes),
            "maxJobs": .int(configuration.maxJobs),
            "maxQueue": .int(configuration.maxQueue),
            "drainTimeoutSeconds": .int(Int(configuration.drainTimeout.components.seconds)),
        ]
        limits.merge(configuration.extraLimits) { _, new in new }
        return NativeResult(
            serverInfo: ["name": configuration.name, "version": configuration.version],
            protocolVersion: configuration.protocolVersion, methods: methods(), limits: limits,
            policy: configuration.sessionDelegate?.policyFacts)
    }
}
