/// A JSON document as a value: what the parser produces and what built-in methods build.
///
/// Numbers keep their literal text so an id such as `1e400` or `12345678901234567890` is echoed
/// back exactly as the client wrote it; use ``intValue`` or ``doubleValue`` to read them.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's literal text, already validated against the JSON grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A number value from an integer.
    public static func int(_ value: Int) -> JSONValue { .number(String(value)) }

    /// A number value from a double; non-finite values become `null` (JSON cannot carry them).
    public static func double(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        if value == value.rounded(), abs(value) < 1e15 { return .number(String(Int64(value))) }
        return .number(String(value))
    }

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The integer value of a number literal that is integral and fits in `Int`.
    public var intValue: Int? {
        guard case .number(let text) = self else { return nil }
        if let v = Int(text) { return v }
        if let d = Double(text), d.isFinite, d == d.rounded(), abs(d) < 9.0e18 { return Int(d) }
        return nil
    }

    public var doubleValue: Double? {
        guard case .number(let text) = self else { return nil }
        return Double(text)
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The JSON type name, for error messages ("expected an object, got array").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// Compact JSON text for this value.
    public var serialized: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        JSONWriter.write(self, into: &out)
        return out
    }

    /// Compact JSON text as a `String` (tests and logs).
    public var jsonString: String { String(decoding: serialized, as: UTF8.self) }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let text):
            if let i = Int(text) { try c.encode(i) } else { try c.encode(Double(text) ?? 0) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}
