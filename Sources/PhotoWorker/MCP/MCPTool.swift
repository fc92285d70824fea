import JSONRPC
import JSONRPCTransport

/// A method that MCP hosts may call as a tool. Conforming is the whole decision: ``MCPToolCatalog`` lists the
/// conforming methods of ``OpenRPCDocument/methods``, with their schemas from the method's contract.
protocol MCPToolMethod: RPCMethod {
    /// What the host shows and is told about the tool.
    static var tool: MCPTool { get }
}

/// What a host is told about a tool beyond its schemas.
struct MCPTool: Sendable {
    /// What a host shows as the tool's name (MCP's `title`); the method's summary opens its description.
    var title: String
    /// What the tool does to the world (MCP's annotations).
    var effects: Effects
    /// Long enough to run as an MCP task (``MCPTaskStore``); other tools answer at once.
    var runsAsTask = false
    /// A batch whose items stream as they finish in the native protocol: the tool's result gathers them.
    var batch: Batch? = nil

    /// What a tool does to the world, told truthfully to hosts (MCP `ToolAnnotations`).
    struct Effects: Sendable {
        /// Writes nothing (no outputs, no state).
        var readOnly: Bool
        /// Can replace what exists: outputs with `"overwrite": true`.
        var destructive: Bool
        /// Sources may be http(s) URLs, fetched from the network.
        var openWorld: Bool

        /// Reads its sources (files or URLs) and writes nothing.
        static let readsSources = Effects(readOnly: true, destructive: false, openWorld: true)
        /// Reads its sources and writes outputs, replacing files only with `"overwrite": true`.
        static let writesOutputs = Effects(readOnly: false, destructive: true, openWorld: true)

        /// MCP reads destructive and idempotent only when a tool is not read-only.
        var json: JSONValue {
            var a: [String: JSONValue] = ["readOnlyHint": .bool(readOnly), "openWorldHint": .bool(openWorld)]
            if !readOnly {
                a["destructiveHint"] = .bool(destructive)
                // The same arguments make the same files (and without "overwrite" a second call
                // replaces nothing); clearing the cache twice clears nothing more.
                a["idempotentHint"] = true
            }
            return .object(a)
        }
    }

    /// The tool's result gathers the streamed items under `items`, each with its source
    /// (`arguments[sourcesKey][index]`) and its result or error.
    struct Batch: Sendable {
        var sourcesKey: String
        /// The `components/schemas` name of one item's result.
        var itemResult: String
    }
}
