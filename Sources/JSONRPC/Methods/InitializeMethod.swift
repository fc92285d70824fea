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
        if let memory = configuration.memoryBudget {
            limits["maxMemoryBytes"] = .int(memory.bytes)
            limits["maxMemoryOrigin"] = .string(memory.origin)
        }
        limits.merge(configuration.extraLimits) { _, new in new }
        return try RawJSON(encoding: NativeResult(
            serverInfo: ["name": configuration.name, "version": configuration.version],
            protocolVersion: configuration.protocolVersion, methods: methods(), limits: limits, policy: policy))
    }
}

extension InitializeMethod {
    static let contract: MethodContract = #"""
        {
          "params": [
            {
              "name": "protocolVersion",
              "schema": {"type": "string"},
              "required": false,
              "description": "A date (`2025-06-18`) makes this an MCP session: the reply takes MCP's shape and MCP's conventions apply from then on (tools/*, notifications/progress, no reply to a cancelled request)."
            },
            {"name": "clientInfo", "schema": {"type": "object"}, "required": false},
            {
              "name": "capabilities",
              "schema": {"type": "object"},
              "required": false,
              "description": "MCP client capabilities."
            }
          ],
          "result": {
            "name": "InitializeResult",
            "schema": {
              "oneOf": [
                {
                  "type": "object",
                  "properties": {
                    "protocolVersion": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                    "capabilities": {"type": "object"},
                    "serverInfo": {
                      "type": "object",
                      "properties": {
                        "name": {"type": "string"},
                        "version": {"type": "string"},
                        "title": {"type": "string"},
                        "description": {"type": "string"},
                        "icons": {
                          "type": "array",
                          "items": {
                            "type": "object",
                            "properties": {
                              "src": {"type": "string"},
                              "mimeType": {"type": "string"},
                              "sizes": {"type": "array", "items": {"type": "string"}}
                            },
                            "required": ["src"]
                          }
                        }
                      },
                      "required": ["name", "version"],
                      "additionalProperties": false
                    },
                    "instructions": {"type": "string"},
                    "_meta": {
                      "type": "object",
                      "properties": {"policy": {"$ref": "#/components/schemas/SessionPolicy"}},
                      "additionalProperties": true
                    }
                  },
                  "required": ["protocolVersion", "capabilities", "serverInfo"],
                  "additionalProperties": false
                },
                {
                  "type": "object",
                  "properties": {
                    "serverInfo": {
                      "type": "object",
                      "properties": {"name": {"type": "string"}, "version": {"type": "string"}},
                      "required": ["name", "version"],
                      "additionalProperties": false
                    },
                    "protocolVersion": {"type": "string"},
                    "methods": {
                      "type": "array",
                      "items": {
                        "type": "object",
                        "properties": {
                          "name": {"type": "string"},
                          "cost": {"enum": ["immediate", "waiting", "compute"]},
                          "summary": {"type": "string"}
                        },
                        "required": ["name", "cost", "summary"],
                        "additionalProperties": false
                      }
                    },
                    "limits": {
                      "type": "object",
                      "properties": {
                        "maxMessageBytes": {
                          "type": "integer",
                          "minimum": 0,
                          "description": "Longest accepted message (a line, or a Content-Length body)."
                        },
                        "maxLineBytes": {
                          "type": "integer",
                          "minimum": 0,
                          "description": "The 1.0 name of maxMessageBytes (same value)."
                        },
                        "maxJobs": {"type": "integer", "minimum": 0},
                        "maxQueue": {"type": "integer", "minimum": 0},
                        "drainTimeoutSeconds": {"type": "integer", "minimum": 0},
                        "maxPixels": {"type": "integer", "minimum": 0},
                        "maxFetchBytes": {"type": "integer", "minimum": 0},
                        "cacheBytes": {"type": "integer", "minimum": 0},
                        "maxMemoryBytes": {
                          "type": "integer",
                          "minimum": 0,
                          "description": "The memory budget compute jobs are admitted against by their estimated peaks."
                        },
                        "maxMemoryOrigin": {"type": "string", "description": "How the memory budget was chosen."}
                      },
                      "required": ["maxMessageBytes", "maxLineBytes", "maxJobs", "maxQueue", "drainTimeoutSeconds"],
                      "additionalProperties": {"type": ["integer", "number", "string", "boolean"]}
                    },
                    "policy": {"$ref": "#/components/schemas/SessionPolicy"}
                  },
                  "required": ["serverInfo", "protocolVersion", "methods", "limits"],
                  "additionalProperties": false
                }
              ]
            }
          }
        }
        """#
}
