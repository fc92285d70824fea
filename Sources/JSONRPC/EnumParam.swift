import JSONRPCTransport

/// One parameter that takes one of a few names, stated once: the names allowed and the default, from which the
/// schema in the method's contract and the code that falls back to the default both read (``FlagParam`` for
/// booleans, ``NumberParam`` for numbers). The decoding of the value stays the enum's own (`Decodable`).
public struct EnumParam<Value: RawRepresentable & Sendable & Equatable>: ContractParam where Value.RawValue == String {
    /// The parameter's name (its path in a request, unless the caller places it elsewhere).
    public let name: String
    /// The names accepted, in the order the schema lists them.
    public let allowed: [Value]
    /// What an absent value means.
    public let defaultValue: Value
    /// Whether the schema says `"type": "string"` beside the `enum` (kept as each method's schema said it).
    public let statesType: Bool

    public init(_ name: String, allowed: [Value], default defaultValue: Value, statesType: Bool = true) {
        precondition(allowed.contains(defaultValue), "\(name): the default must be one of the names allowed")
        self.name = name
        self.allowed = allowed
        self.defaultValue = defaultValue
        self.statesType = statesType
    }

    /// `given`, or the default when it is absent.
    public func value(_ given: Value?) -> Value { given ?? defaultValue }

    /// The parameter's JSON schema (`{"type": "string", "enum": ["subject", "frame"], "default": "subject"}`).
    public func schemaValue(description: String? = nil) -> JSONValue {
        var schema: [String: JSONValue] = ["enum": .array(allowed.map { .string($0.rawValue) }),
                                           "default": .string(defaultValue.rawValue)]
        if statesType { schema["type"] = "string" }
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }
}

extension EnumParam where Value: CaseIterable {
    /// A parameter that takes every case of `Value`.
    public init(_ name: String, default defaultValue: Value, statesType: Bool = true) {
        self.init(name, allowed: Array(Value.allCases), default: defaultValue, statesType: statesType)
    }
}
