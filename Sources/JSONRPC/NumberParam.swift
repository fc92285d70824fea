import JSONRPCTransport

/// A number a ``NumberParam`` bounds: an `Int` or a `Double`.
public protocol ParamNumber: Comparable, Sendable {
    /// The value in a schema or a message, as JSON writes it: `16`, `0.5`, `60` (never `60.0`).
    var contractText: String { get }
    /// The value in a schema (a JSON number).
    var contractValue: JSONValue { get }
    /// False for a Double that is not finite: never within bounds.
    var isFiniteNumber: Bool { get }
}

extension Int: ParamNumber {
    public var contractText: String { String(self) }
    public var contractValue: JSONValue { .int(self) }
    public var isFiniteNumber: Bool { true }
}

extension Double: ParamNumber {
    public var contractText: String {
        rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
    public var contractValue: JSONValue { .number(contractText) }
    public var isFiniteNumber: Bool { isFinite }
}

/// One numeric parameter stated once: its bounds and default, from which the check that refuses a value (-32602
/// with `data.path` naming it), the schema in the method's contract (so protocol/openrpc.json and MCP's tool
/// schemas) and the code that falls back to the default all read.
///
/// A method states its rules beside its `Params` (`static let size = NumberParam("size", 16...2048, default: 512)`)
/// and puts them in its contract literal with `\#(Self.size.entry(description: "..."))`, or in an object schema as
/// `"size": \#(Self.size.schema(description: "..."))`. HostileParamsTests reads the bounds back from the document
/// and sends values just outside them.
public struct NumberParam<Value: ParamNumber>: ContractParam {
    public enum Bound: Sendable {
        case inclusive(Value)
        case exclusive(Value)

        var value: Value {
            switch self {
            case .inclusive(let v), .exclusive(let v): v
            }
        }
    }

    /// The parameter's name (its path in a request, unless the caller places it elsewhere).
    public let name: String
    public let lower: Bound?
    public let upper: Bound?
    /// What an absent value means.
    public let defaultValue: Value?
    /// The refusal's reason (`data.reason`), without the path.
    public let message: String

    /// A parameter within `lower` and `upper`. `unit` ends the generated message ("must be between 0 and 10
    /// seconds"); `message` replaces it.
    public init(_ name: String, lower: Bound?, upper: Bound? = nil, default defaultValue: Value? = nil,
                unit: String? = nil, message: String? = nil) {
        self.name = name
        self.lower = lower
        self.upper = upper
        self.defaultValue = defaultValue
        self.message = message ?? Self.message(lower: lower, upper: upper, unit: unit)
    }

    /// A parameter within `range`, both ends included.
    public init(_ name: String, _ range: ClosedRange<Value>, default defaultValue: Value? = nil, unit: String? = nil,
                message: String? = nil) {
        self.init(name, lower: .inclusive(range.lowerBound), upper: .inclusive(range.upperBound), default: defaultValue,
                  unit: unit, message: message)
    }

    private static func message(lower: Bound?, upper: Bound?, unit: String?) -> String {
        let suffix = unit.map { " \($0)" } ?? ""
        switch (lower, upper) {
        case (.inclusive(let a)?, .inclusive(let b)?): return "must be between \(a.contractText) and \(b.contractText)\(suffix)"
        case (.exclusive(let a)?, .inclusive(let b)?): return "must be in (\(a.contractText), \(b.contractText)]"
        case (.inclusive(let a)?, nil):
            return unit.map { "must be a number of \($0), at least \(a.contractText)" } ?? "must be at least \(a.contractText)"
        case (.exclusive(let a)?, nil):
            return unit.map { "must be a number of \($0) over \(a.contractText)" } ?? "must be over \(a.contractText)"
        default:
            preconditionFailure("state the message of a parameter bounded otherwise")
        }
    }

    /// The same bounds and message with another default (a parameter that is optional in one method and required
    /// in another).
    public func defaulting(to value: Value) -> NumberParam {
        NumberParam(name, lower: lower, upper: upper, default: value, message: message)
    }

    /// Whether `value` is within the bounds (a Double that is not finite never is).
    public func contains(_ value: Value) -> Bool {
        guard value.isFiniteNumber else { return false }
        switch lower {
        case .inclusive(let a)?: if value < a { return false }
        case .exclusive(let a)?: if value <= a { return false }
        case nil: break
        }
        switch upper {
        case .inclusive(let b)?: if value > b { return false }
        case .exclusive(let b)?: if value >= b { return false }
        case nil: break
        }
        return true
    }

    /// `value` if it is within bounds (nil stays nil); else -32602 at `path` (the name by default).
    @discardableResult
    public func checked(_ value: Value?, path: String? = nil) throws(RPCError) -> Value? {
        guard let value else { return nil }
        guard contains(value) else { throw RPCError.invalidParams(path: path ?? name, message) }
        return value
    }

    /// `value`, or the default when it is absent, checked as ``checked(_:path:)`` checks it.
    public func value(_ value: Value?, path: String? = nil) throws(RPCError) -> Value {
        guard let v = value ?? defaultValue else {
            preconditionFailure("\(name) has no default")
        }
        return try checked(v, path: path)!
    }

    /// The default, for code that needs it without a value to check.
    public var standard: Value {
        guard let defaultValue else { preconditionFailure("\(name) has no default") }
        return defaultValue
    }

    /// The parameter's JSON schema (`{"type": "integer", "minimum": 16, "maximum": 2048, "default": 512}`).
    public func schemaValue(description: String? = nil) -> JSONValue {
        var schema: [String: JSONValue] = ["type": Value.self == Int.self ? "integer" : "number"]
        switch lower {
        case .inclusive(let a)?: schema["minimum"] = a.contractValue
        case .exclusive(let a)?: schema["exclusiveMinimum"] = a.contractValue
        case nil: break
        }
        switch upper {
        case .inclusive(let b)?: schema["maximum"] = b.contractValue
        case .exclusive(let b)?: schema["exclusiveMaximum"] = b.contractValue
        case nil: break
        }
        if let defaultValue { schema["default"] = defaultValue.contractValue }
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }
}
