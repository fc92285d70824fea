import JSONRPC
import JSONRPCTransport

/// MCP 2026-07-28's per-request envelope: `params._meta` carries `io.modelcontextprotocol/protocolVersion` and
/// `io.modelcontextprotocol/clientCapabilities` (both required), `io.modelcontextprotocol/clientInfo` and
/// `io.modelcontextprotocol/logLevel` (optional). A request without a protocol version has no envelope and is
/// served as the legacy revisions are (a dual-era server serves both).
struct MCPEnvelope: Sendable, Equatable {
    static let protocolVersionKey = "io.modelcontextprotocol/protocolVersion"
    static let clientCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    static let clientInfoKey = "io.modelcontextprotocol/clientInfo"
    static let logLevelKey = "io.modelcontextprotocol/logLevel"
    static let serverInfoKey = "io.modelcontextprotocol/serverInfo"
    static let logLevels: Set<String> = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

    var protocolVersion: String
    var clientCapabilities: JSONValue
    var clientInfo: JSONValue?

    /// Whether this request speaks a stateless revision (its results carry `resultType`).
    var isModern: Bool { MCPDialect.modernVersions.contains(protocolVersion) }

    /// The envelope of a request's params; nil when it has none.
    /// - Throws: -32602 naming the field for a malformed envelope (a required field missing, a field of the
    ///   wrong type); -32022 `Unsupported protocol version` with `data.supported` and `data.requested` for a
    ///   version the worker does not speak.
    static func parse(_ params: JSONValue?) throws -> MCPEnvelope? {
        try parse(meta: params?["_meta"])
    }

    static func parse(meta: JSONValue?) throws -> MCPEnvelope? {
        guard let meta, meta != .null else { return nil }
        guard case .object(let m) = meta else {
            throw RPCError.invalidParams(path: "_meta", "must be an object, got \(meta.typeName)")
        }
        let mcpKeys = [protocolVersionKey, clientCapabilitiesKey, clientInfoKey, logLevelKey]
        guard let version = m[protocolVersionKey] else {
            // Part of an envelope without its version is a malformed modern request, not a legacy one.
            if let stray = mcpKeys.first(where: { m[$0] != nil }) {
                throw RPCError.invalidParams(path: "_meta.\(protocolVersionKey)", "is required with \(stray)")
            }
            return nil
        }
        guard case .string(let v) = version else {
            throw RPCError.invalidParams(path: "_meta.\(protocolVersionKey)", "must be a string, got \(version.typeName)")
        }
        guard MCPDialect.versions.contains(v) else { throw unsupported(v) }
        guard let capabilities = m[clientCapabilitiesKey] else {
            throw RPCError.invalidParams(path: "_meta.\(clientCapabilitiesKey)", "is required on every request")
        }
        guard case .object = capabilities else {
            throw RPCError.invalidParams(path: "_meta.\(clientCapabilitiesKey)", "must be an object, got \(capabilities.typeName)")
        }
        let info = m[clientInfoKey]
        if let info {
            guard info["name"]?.stringValue != nil, info["version"]?.stringValue != nil else {
                throw RPCError.invalidParams(path: "_meta.\(clientInfoKey)", "must be an object with a name and a version")
            }
        }
        if let level = m[logLevelKey], !(level.stringValue.map(logLevels.contains) ?? false) {
            throw RPCError.invalidParams(path: "_meta.\(logLevelKey)", "must be one of \(logLevels.sorted().joined(separator: ", "))")
        }
        return MCPEnvelope(protocolVersion: v, clientCapabilities: capabilities, clientInfo: info)
    }

    /// -32022: the version named is not one the worker speaks; `supported` lists those it does, newest first.
    static func unsupported(_ requested: String) -> RPCError {
        RPCError(code: ErrorCode(rawValue: -32022), message: "Unsupported protocol version",
                 data: ["supported": .array(MCPDialect.supportedVersions.map(JSONValue.string)), "requested": .string(requested)])
    }

    /// -32601 for a method the request's revision does not have, saying why.
    static func methodNotFound(_ method: String, _ reason: String) -> RPCError {
        RPCError(code: .methodNotFound, message: "method not found", data: ["method": .string(method), "reason": .string(reason)])
    }

    /// What every result of a stateless revision carries: `resultType` and the server's name and version (the
    /// full identity, icons included, is `server/discover`'s).
    static let resultFields: [String: JSONValue] = [
        "resultType": "complete",
        "_meta": [serverInfoKey: ["name": .string(MCPServerInfo.worker.name), "version": .string(MCPServerInfo.worker.version)]],
    ]
}

extension MCPEnvelope {
    /// The shared schema `MCPRequestMeta` of the OpenRPC document's components: the `_meta` every MCP request may carry.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("MCPRequestMeta", #"""
            {
              "type": "object",
              "description": "`progressToken`, and MCP 2026-07-28's per-request envelope: `io.modelcontextprotocol/protocolVersion` and `io.modelcontextprotocol/clientCapabilities` (required together), `io.modelcontextprotocol/clientInfo`, `io.modelcontextprotocol/logLevel`. A request without a protocol version is served as the legacy (initialize) revisions are; one naming a 2026-07-28 revision gets `resultType` and `_meta[\"io.modelcontextprotocol/serverInfo\"]` in its result. An unsupported version is -32022 (`data.supported`, `data.requested`), a malformed envelope -32602 naming the field.",
              "properties": {
                "io.modelcontextprotocol/protocolVersion": {"type": "string"},
                "io.modelcontextprotocol/clientCapabilities": {"type": "object"},
                "io.modelcontextprotocol/clientInfo": {
                  "type": "object",
                  "properties": {"name": {"type": "string"}, "version": {"type": "string"}},
                  "required": ["name", "version"]
                },
                "io.modelcontextprotocol/logLevel": {"type": "string"},
                "progressToken": {"type": ["string", "integer"]}
              }
            }
            """#),
    ]
}
