/// `initialize`: who the server is, what it offers and its limits. Optional: scripts may skip it.
struct InitializeMethod: RPCMethod {
    static let name = "initialize"
    static let cost = MethodCost.immediate
    static let summary = "Server name, version, protocol version, methods and limits."

    struct Params: Decodable, Sendable {
        var protocolVersion: String?
        var clientInfo: JSONValue?
    }

    struct MethodInfo: Encodable, Sendable {
        var name: String
        var cost: MethodCost
        var summary: String
    }

    struct Result: Encodable, Sendable {
        var serverInfo: [String: String]
        var protocolVersion: String
        var methods: [MethodInfo]
        var limits: [String: JSONValue]
    }

    let configuration: ServerConfiguration
    let methods: @Sendable () -> [MethodInfo]

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        var limits: [String: JSONValue] = [
            "maxLineBytes": .int(configuration.maxLineBytes),
            "maxJobs": .int(configuration.maxJobs),
            "maxQueue": .int(configuration.maxQueue),
            "drainTimeoutSeconds": .int(Int(configuration.drainTimeout.components.seconds)),
        ]
        limits.merge(configuration.extraLimits) { _, new in new }
        return Result(
            serverInfo: ["name": configuration.name, "version": configuration.version],
            protocolVersion: configuration.protocolVersion, methods: methods(), limits: limits)
    }
}
