import Foundation
import JSONRPC
import JSONRPCTransport

/// The image methods as MCP tools: names, descriptions, input and output schemas derived from the
/// methods' contracts in the OpenRPC document, so MCP hosts and native clients see one contract. Schemas are JSON Schema
/// 2020-12 (MCP's default dialect since 2025-11-25, and said so with `$schema` for older hosts).
enum MCPToolCatalog {
    /// The tools: every method of the document that is an ``MCPToolMethod``, in the document's order.
    static let tools: [(method: String, tool: MCPTool)] = OpenRPCDocument.methods.compactMap { type in
        (type as? any MCPToolMethod.Type).map { ($0.name, $0.tool) }
    }

    /// The methods offered as tools (protocol plumbing and diagnostics are not).
    static let methods: [String] = tools.map(\.method)

    private static let byMethod: [String: MCPTool] = Dictionary(uniqueKeysWithValues: tools.map { ($0.method, $0.tool) })

    /// The tool `method` is, if it is one.
    static func tool(for method: String) -> MCPTool? { byMethod[method] }

    /// Tools long enough to run as MCP tasks (``MCPTaskStore``); the others answer at once.
    static let taskTools: Set<String> = Set(tools.filter(\.tool.runsAsTask).map(\.method))

    static let jsonSchemaDialect = "https://json-schema.org/draft/2020-12/schema"

    /// A method's tool name, in snake_case throughout: MCP hosts commonly restrict tool names to `[A-Za-z0-9_-]`, and
    /// one case reads as one family (`image.thumbnail` -> `image_thumbnail`, `image.animatedSticker` ->
    /// `image_animated_sticker`).
    static func toolName(_ method: String) -> String {
        var name = ""
        for c in method {
            if c == "." {
                name.append("_")
            } else if c.isUppercase {
                name.append("_")
                name.append(contentsOf: c.lowercased())
            } else {
                name.append(c)
            }
        }
        return name
    }

    /// The name a tool had before tool names were all snake_case (`image_animatedSticker`): still accepted by
    /// tools/call for one release, never listed by tools/list (a host would see the same tool twice). Nil where it
    /// is the same as ``toolName(_:)``.
    static func deprecatedToolName(_ method: String) -> String? {
        let old = method.replacingOccurrences(of: ".", with: "_")
        return old == toolName(method) ? nil : old
    }

    /// The method for a tool name: its tool name, the method's own name, or a deprecated tool name
    /// (``deprecatedToolName(_:)``).
    static func method(forTool name: String) -> String? {
        methods.first { $0 == name || toolName($0) == name || deprecatedToolName($0) == name }
    }

    /// Every tool's name as tools/list gives it.
    static var toolNames: [String] { methods.map(toolName) }

    /// tools/list's `tools`.
    static let list: JSONValue = .array(methods.compactMap(toolEntry))

    private static var components: [String: JSONValue] {
        guard case .object(let c)? = OpenRPCDocument.value["components"]?["schemas"] else { return [:] }
        return c
    }

    /// The component schemas `schema` refers to, directly or through each other: each tool schema stands alone
    /// and carries only what it uses (hosts put tool definitions in the model's context).
    private static func defs(usedBy schema: JSONValue) -> JSONValue {
        let all = components
        var used: [String: JSONValue] = [:]
        var pending = [schema]
        while let next = pending.popLast() {
            for name in references(in: next) where used[name] == nil {
                guard let def = all[name] else { continue }
                used[name] = def
                pending.append(def)
            }
        }
        return .object(used)
    }

    /// The names of `#/components/schemas/X` references in `v`.
    private static func references(in v: JSONValue) -> [String] {
        switch v {
        case .string(let s) where s.hasPrefix("#/components/schemas/"):
            return [String(s.dropFirst("#/components/schemas/".count))]
        case .array(let a): return a.flatMap(references)
        case .object(let o): return o.values.flatMap(references)
        default: return []
        }
    }

    private static func toolEntry(_ method: String) -> JSONValue? {
        guard let m = OpenRPCDocument.method(method), let traits = tool(for: method) else { return nil }
        var properties: [String: JSONValue] = [:]
        var required: [JSONValue] = []
        if case .array(let params) = m["params"] {
            for p in params {
                guard let name = p["name"]?.stringValue else { continue }
                var schema = p["schema"] ?? .object([:])
                if let d = p["description"], case .object(var o) = schema, o["description"] == nil {
                    o["description"] = d
                    schema = .object(o)
                }
                properties[name] = schema
                if p["required"] == .bool(true) { required.append(.string(name)) }
            }
        }
        var input: [String: JSONValue] = [
            "$schema": .string(jsonSchemaDialect), "type": "object", "properties": .object(properties),
            "required": .array(required),
        ]
        input["$defs"] = defs(usedBy: .object(input))
        let summary = m["summary"]?.stringValue ?? method
        let description = [summary, m["description"]?.stringValue].compactMap { $0 }.joined(separator: "\n\n")
        var tool: [String: JSONValue] = [
            "name": .string(toolName(method)), "title": .string(traits.title), "description": .string(description),
            "inputSchema": rewriteRefs(.object(input)), "annotations": traits.effects.json,
        ]
        if let output = outputSchema(traits, result: m["result"]?["schema"]) { tool["outputSchema"] = rewriteRefs(output) }
        // MCP 2025-11-25: a host may run it as a task, or call it as usual.
        if traits.runsAsTask { tool["execution"] = ["taskSupport": "optional"] }
        return .object(tool)
    }

    /// The method's result schema as MCP wants it (an object at the top), with a batch's `items`.
    private static func outputSchema(_ traits: MCPTool, result: JSONValue?) -> JSONValue? {
        guard case .object(var schema)? = result else { return nil }
        if schema["type"] == nil { schema["type"] = "object" }  // a bare $ref (photo.process's PhotoResult)
        if let batch = traits.batch, case .object(var props)? = schema["properties"] {
            props["items"] = [
                "type": "array",
                "description": "Every source that finished, in input order: its result, or the error that stopped it (with the source as given). Sources cut short by cancellation are absent.",
                "items": [
                    "type": "object",
                    "properties": [
                        "index": ["type": "integer", "minimum": 0],
                        "source": ["type": "object", "description": "The source as given (inline data abbreviated to its length)."],
                        "result": ["$ref": .string("#/components/schemas/" + batch.itemResult)],
                        "error": ["$ref": "#/components/schemas/ErrorObject"],
                    ],
                    "required": ["index", "source"],
                    "oneOf": [["required": ["result"]], ["required": ["error"]]],
                    "additionalProperties": false,
                ],
            ]
            schema["properties"] = .object(props)
            if case .array(var req)? = schema["required"] {
                req.append("items")
                schema["required"] = .array(req)
            }
        }
        schema["$schema"] = .string(jsonSchemaDialect)
        schema["$defs"] = defs(usedBy: .object(schema))
        return .object(schema)
    }

    /// `#/components/schemas/X` -> `#/$defs/X`, so each tool schema stands alone.
    static func rewriteRefs(_ v: JSONValue) -> JSONValue {
        switch v {
        case .string(let s) where s.hasPrefix("#/components/schemas/"):
            return .string("#/$defs/" + s.dropFirst("#/components/schemas/".count))
        case .array(let a): return .array(a.map(rewriteRefs))
        case .object(let o): return .object(o.mapValues(rewriteRefs))
        default: return v
        }
    }
}
