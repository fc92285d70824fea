import JSONRPCTransport

/// A method's part of the wire contract, stated once beside its `Params`, `Result` and handler: its OpenRPC
/// entry except what the method type already says (`name`, `summary`, `x-cost`, `paramStructure`).
///
/// The text is a JSON object (`params`, `result`, `errors`, `description`, `x-streams`) written as a raw string
/// literal in the method's file. The OpenRPC document, MCP's tool schemas and the unknown-parameter check are all
/// built from these at run time, and protocol/openrpc.json is generated from them (`photoworker contract`), so a
/// method's schema cannot drift from the method. A literal that does not parse is a programmer error: every
/// contract is parsed by the tests that compare the generated document with the committed one.
public struct MethodContract: Sendable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    /// The entry's members beyond name, summary and cost.
    public let members: [String: JSONValue]

    public init(stringLiteral text: String) {
        guard case .object(let members)? = try? JSONParser.parse(Array(text.utf8)) else {
            preconditionFailure("a method contract must be a JSON object:\n\(text)")
        }
        self.members = members
    }

    /// A literal with `\#(...)` in it: an `enum` a Swift list states (``ContractSchema/list(_:)``).
    public init(stringInterpolation: DefaultStringInterpolation) {
        self.init(stringLiteral: String(stringInterpolation: stringInterpolation))
    }

    /// The whole OpenRPC entry of a method called `name`. A notification (no `result`) has no cost class: it
    /// is never a job.
    public func entry(name: String, summary: String, cost: MethodCost) -> JSONValue {
        var entry = members
        entry["name"] = .string(name)
        entry["summary"] = .string(summary)
        entry["paramStructure"] = "by-name"
        if entry["result"] != nil { entry["x-cost"] = .string(cost.rawValue) }
        if entry["params"] == nil { entry["params"] = .array([]) }
        return .object(entry)
    }

    /// The entry of method type `M`, registered under `name` (its own unless the application renames it).
    public static func entry<M: RPCMethod>(of method: M.Type, name: String? = nil) -> JSONValue {
        M.contract.entry(name: name ?? M.name, summary: M.summary, cost: M.cost)
    }
}

/// A schema that several methods share (`components.schemas` in the OpenRPC document, `$defs` in MCP's tool
/// schemas), stated beside the Swift type it describes.
public struct ContractSchema: Sendable {
    /// The name other schemas refer to as `#/components/schemas/NAME`.
    public let name: String
    public let schema: JSONValue

    public init(_ name: String, _ text: String) {
        guard let schema = try? JSONParser.parse(Array(text.utf8)) else {
            preconditionFailure("the schema \(name) must be JSON:\n\(text)")
        }
        self.name = name
        self.schema = schema
    }

    /// `values` as the items of a JSON array of strings (`"a", "b"`), for a schema's `enum` that a Swift list states:
    /// `"enum": [\#(ContractSchema.list(ImageFormat.written.map(\.rawValue)))]` inside the raw literal.
    public static func list(_ values: [String]) -> String {
        values.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// `names` as the items of a method's `errors` (`{"$ref": "#/components/errors/NAME"}, ...`), for the lists
    /// several methods share: `"errors": [\#(WorkerError.outputMethodErrors)]` inside the raw literal.
    public static func errorRefs(_ names: [String]) -> String {
        names.map { ##"{"$ref": "#/components/errors/\##($0)"}"## }.joined(separator: ", ")
    }
}
