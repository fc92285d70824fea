/// A JSON-RPC request id: a string or a number.
///
/// Numbers are kept as their literal text so the reply echoes exactly what the client sent.
public enum RequestID: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case number(String)

    public init(_ value: Int) { self = .number(String(value)) }

    /// The id as a JSON value, for building messages.
    public var json: JSONValue {
        switch self {
        case .string(let s): .string(s)
        case .number(let n): .number(n)
        }
    }

    /// Reads an id from a JSON value: strings and numbers only.
    public init?(json: JSONValue) {
        switch json {
        case .string(let s): self = .string(s)
        case .number(let n): self = .number(n)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .string(let s): "\"\(s)\""
        case .number(let n): n
        }
    }
}

extension RequestID: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) { self = .string(s); return }
        if let i = try? c.decode(Int64.self) { self = .number(String(i)); return }
        let d = try c.decode(Double.self)
        self = .number(JSONValue.double(d).jsonString)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .number(let n):
            if let i = Int64(n) { try c.encode(i) } else { try c.encode(Double(n) ?? 0) }
        }
    }
}
