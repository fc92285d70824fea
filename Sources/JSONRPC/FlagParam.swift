import JSONRPCTransport

/// One boolean parameter stated once: its default, from which the schema in the method's contract (so
/// protocol/openrpc.json and MCP's tool schemas) and the code that falls back to it both read, as ``NumberParam``
/// does for numbers.
///
/// A method states it beside its `Params` (`static let allowTruncated = FlagParam("allowTruncated", default: false)`),
/// puts `\#(Self.allowTruncated.entry(description: "..."))` in its contract literal (or `.schema(...)` as an object
/// schema's property) and reads `Self.allowTruncated.value(params.allowTruncated)`.
public struct FlagParam: ContractParam {
    /// The parameter's name (its path in a request, unless the caller places it elsewhere).
    public let name: String
    /// What an absent value means.
    public let defaultValue: Bool
    /// The description its schema says unless the caller gives one (a parameter several methods share).
    public let description: String?

    public init(_ name: String, default defaultValue: Bool, description: String? = nil) {
        self.name = name
        self.defaultValue = defaultValue
        self.description = description
    }

    public var standardDescription: String? { description }

    /// `given`, or the default when it is absent.
    public func value(_ given: Bool?) -> Bool { given ?? defaultValue }

    /// The parameter's JSON schema (`{"type": "boolean", "default": true}`); the description goes in a method's
    /// params entry beside it, or here for an object schema's property.
    public func schemaValue(description: String? = nil) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "boolean", "default": .bool(defaultValue)]
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }
}
