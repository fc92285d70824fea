import Foundation
import JSONRPC
import JSONRPCTransport

/// The image methods as MCP tools: names, descriptions and input schemas derived from the
/// OpenRPC document, so MCP hosts and native clients see one contract.
enum MCPToolCatalog {
    /// Methods offered as tools (protocol plumbing and diagnostics are not).
    static let methods = [
        "image.info", "image.convert", "image.thumbnail", "image.scale", "image.palette", "image.effect",
        "image.sticker", "image.subjects", "photo.process", "photos.process", "pack.export", "cache.stats", "cache.clear",
    ]

    /// MCP hosts commonly restrict tool names to `[A-Za-z0-9_-]`: `image.thumbnail` -> `image_thumbnail`.
    static func toolName(_ method: String) -> String { method.replacingOccurrences(of: ".", with: "_") }

    /// The method for a tool name (either spelling is accepted).
    static func method(forTool name: String) -> String? {
        methods.first { $0 == name || toolName($0) == name }
    }

    static let tools: JSONValue = .array(methods.compactMap(tool))

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
        var input: [String: JSONValue] = ["type": "object", "properties": .object(properties), "required": .array(required)]
        if let defs = OpenRPCDocument.value["components"]?["schemas"] { input["$defs"] = defs }
        let summary = m["summary"]?.stringValue ?? method
        let description = [summary, m["description"]?.stringValue].compactMap { $0 }.joined(separator: "\n\n")
        return [
            "name": .string(toolName(method)), "title": .string(summary), "description": .string(description),
            "inputSchema": rewriteRefs(.object(input)),
        ]
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
