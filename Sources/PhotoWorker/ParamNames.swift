import JSONRPC
import JSONRPCTransport

/// Refuses parameter names a method does not take, as its contract declares them: a misspelt `"segmentor"` or
/// `"output": {"qualty": 80}` is -32602 naming it, instead of being ignored.
///
/// The method's ``MethodContract`` (compiled in, never read from a file) is the one statement of its params (MCP's
/// tool schemas come from it too), so the rule reads the document built from the contracts: top-level names from
/// the method's `params`, nested ones from every object schema with `"additionalProperties": false` (through
/// `$ref`, `oneOf` and `items`).
enum ParamNames {
    /// A check for `method`'s params, or nil when the document does not describe it.
    static func check(_ method: String) -> (@Sendable (JSONValue) throws -> Void)? {
        guard let description = OpenRPCDocument.method(method), case .array(let params)? = description["params"] else {
            return nil
        }
        var properties: [String: JSONValue] = [:]
        for p in params {
            if let name = p["name"]?.stringValue { properties[name] = p["schema"] ?? .object([:]) }
        }
        let schema: JSONValue = .object(["type": "object", "properties": .object(properties), "additionalProperties": false])
        return { value in try check(value, against: schema, path: "") }
    }

    private static func resolve(_ schema: JSONValue) -> JSONValue {
        guard let ref = schema["$ref"]?.stringValue, ref.hasPrefix("#/components/schemas/") else { return schema }
        let name = String(ref.dropFirst("#/components/schemas/".count))
        return OpenRPCDocument.value["components"]?["schemas"]?[name] ?? .object([:])
    }

    /// The object schemas `schema` may be (itself, or its `oneOf`/`anyOf` alternatives).
    private static func alternatives(_ schema: JSONValue) -> [JSONValue] {
        let s = resolve(schema)
        for key in ["oneOf", "anyOf"] {
            if case .array(let options)? = s[key] { return options.flatMap(alternatives) }
        }
        return [s]
    }

    static func check(_ value: JSONValue, against schema: JSONValue, path: String) throws {
        let options = alternatives(schema)
        switch value {
        case .object(let members):
            // Keys any alternative names are allowed; only when every alternative is closed is the rest refused.
            var known: [String: JSONValue] = [:]
            var closed = true
            for o in options {
                if case .object(let props)? = o["properties"] {
                    for (k, v) in props where known[k] == nil { known[k] = v }
                }
                if o["additionalProperties"] != .bool(false) { closed = false }
            }
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                let here = path.isEmpty ? key : "\(path).\(key)"
                if let sub = known[key] {
                    try check(member, against: sub, path: here)
                } else if closed && !options.isEmpty {
                    let expected = known.keys.sorted().joined(separator: ", ")
                    throw RPCError.invalidParams(path: here, "unknown parameter; expected one of: \(expected)")
                }
            }
        case .array(let elements):
            guard let items = options.lazy.compactMap({ $0["items"] }).first else { return }
            for (i, e) in elements.enumerated() { try check(e, against: items, path: "\(path)[\(i)]") }
        default:
            return
        }
    }
}
