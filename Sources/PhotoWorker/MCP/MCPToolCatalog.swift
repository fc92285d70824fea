import Foundation
import JSONRPC
import JSONRPCTransport

/// The image methods as MCP tools: names, descriptions, input and output schemas derived from the
/// OpenRPC document, so MCP hosts and native clients see one contract. Schemas are JSON Schema
/// 2020-12 (MCP's default dialect since 2025-11-25, and said so with `$schema` for older hosts).
enum MCPToolCatalog {
    /// Methods offered as tools (protocol plumbing and diagnostics are not).
    static let methods = [
        "image.info", "image.convert", "image.thumbnail", "image.scale", "image.palette", "image.effect",
        "image.sticker", "image.subjects", "image.animatedSticker", "photo.process", "photos.process", "pack.export",
        "cache.stats", "cache.clear",
    ]

    /// A batch whose items stream as they finish in the native protocol: the tool's result gathers them
    /// under `items`, each with its source (`arguments[sourcesKey][index]`) and its result or error.
    struct Batch {
        var sourcesKey: String
        /// The `components/schemas` name of one item's result.
        var itemResult: String
    }

    /// What a host shows as a tool's name (MCP's `title`); the method's summary opens its description.
    static let titles = [
        "image.info": "Image info", "image.convert": "Convert image", "image.thumbnail": "Thumbnail",
        "image.scale": "Scale image", "image.palette": "Colour palette", "image.effect": "Image effects",
        "image.sticker": "Sticker cut-out", "image.subjects": "Find subjects",
        "image.animatedSticker": "Animated sticker",
        "photo.process": "Process a photo", "photos.process": "Process photos",
        "pack.export": "Export a sticker pack", "cache.stats": "Cache statistics", "cache.clear": "Clear the cache",
    ]

    static let batches = ["photos.process": Batch(sourcesKey: "sources", itemResult: "PhotoResult")]

    /// Tools long enough to run as MCP tasks (``MCPTaskStore``); the others answer at once.
    static let taskTools: Set<String> = ["photos.process", "pack.export"]

    /// What a tool does to the world, told truthfully to hosts (MCP `ToolAnnotations`).
    struct Effects {
        /// Writes nothing (no outputs, no state).
        var readOnly: Bool
        /// Can replace what exists: outputs with `"overwrite": true`.
        var destructive: Bool
        /// Sources may be http(s) URLs, fetched from the network.
        var openWorld: Bool

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

    static func effects(_ method: String) -> Effects {
        switch method {
        case "image.info", "image.palette": return Effects(readOnly: true, destructive: false, openWorld: true)
        case "cache.stats": return Effects(readOnly: true, destructive: false, openWorld: false)
        // Only the worker's cache of decoded images, which refills itself.
        case "cache.clear": return Effects(readOnly: false, destructive: false, openWorld: false)
        default: return Effects(readOnly: false, destructive: true, openWorld: true)
        }
    }

    static let jsonSchemaDialect = "https://json-schema.org/draft/2020-12/schema"

    /// MCP hosts commonly restrict tool names to `[A-Za-z0-9_-]`: `image.thumbnail` -> `image_thumbnail`.
    static func toolName(_ method: String) -> String { method.replacingOccurrences(of: ".", with: "_") }

    /// The method for a tool name (either spelling is accepted).
    static func method(forTool name: String) -> String? {
        methods.first { $0 == name || toolName($0) == name }
    }

    /// Every tool's name as tools/list gives it.
    static var toolNames: [String] { methods.map(toolName) }

    static let tools: JSONValue = .array(methods.compactMap(tool))

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

    private static func tool(_ method: String) -> JSONValue? {
        guard let m = OpenRPCDocument.method(method) else { return nil }
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
            "name": .string(toolName(method)), "title": .string(titles[method] ?? summary), "description": .string(description),
            "inputSchema": rewriteRefs(.object(input)), "annotations": effects(method).json,
        ]
        if let output = outputSchema(method, result: m["result"]?["schema"]) { tool["outputSchema"] = rewriteRefs(output) }
        // MCP 2025-11-25: a host may run it as a task, or call it as usual.
        if taskTools.contains(method) { tool["execution"] = ["taskSupport": "optional"] }
        return .object(tool)
    }

    /// The method's result schema as MCP wants it (an object at the top), with a batch's `items`.
    private static func outputSchema(_ method: String, result: JSONValue?) -> JSONValue? {
        guard case .object(var schema)? = result else { return nil }
        if schema["type"] == nil { schema["type"] = "object" }  // a bare $ref (photo.process's PhotoResult)
        if let batch = batches[method], case .object(var props)? = schema["properties"] {
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
