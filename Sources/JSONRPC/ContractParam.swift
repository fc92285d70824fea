import JSONRPCTransport

/// A parameter stated once (``NumberParam``, ``EnumParam``, ``FlagParam``): its JSON schema, from which the text a
/// method's contract literal holds is made, so the three say their schema and their params entry the same way.
public protocol ContractParam: Sendable {
    /// The parameter's name (its path in a request, unless the caller places it elsewhere).
    var name: String { get }
    /// The description its schema and entry say unless the caller gives one (a parameter several methods share).
    var standardDescription: String? { get }
    /// The parameter's JSON schema; `description` goes in it when given.
    func schemaValue(description: String?) -> JSONValue
}

extension ContractParam {
    public var standardDescription: String? { nil }

    /// ``schemaValue(description:)`` as text, for an object schema's property inside a contract literal.
    public func schema(description: String? = nil) -> String {
        schemaValue(description: description ?? standardDescription).jsonString
    }

    /// The parameter's entry in a method's `params` (`{"name": ..., "schema": ..., "required": ...}`), as text for
    /// the contract literal; the description goes beside the schema.
    public func entry(required: Bool = false, description: String? = nil) -> String {
        var entry: [String: JSONValue] = ["name": .string(name), "schema": schemaValue(description: nil),
                                          "required": .bool(required)]
        if let description = description ?? standardDescription { entry["description"] = .string(description) }
        return JSONValue.object(entry).jsonString
    }
}
