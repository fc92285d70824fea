/// Decodes a `Decodable` straight from a parsed ``JSONValue``: a request's params go from the parser to the
/// method's typed `Params` without being written out as text and read again by Foundation's `JSONDecoder`.
///
/// Errors are `DecodingError`s with the coding path, as `JSONDecoder`'s are. A number that does not fit the
/// type asked for (`7.5` or `1e400` for an `Int`, `1e400` for a `Double`) is a `dataCorrupted` error at its
/// own path, saying so.
public struct JSONValueDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: []))
    }
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleContainer(value: value, codingPath: codingPath)
    }
}

/// Foundation's wording: "Expected to decode Int but found a string instead."
private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    let found = value == .null ? "null" : "a \(value.typeName)"
    return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(found) instead."))
}

private func unfitting(_ literal: String, _ path: [any CodingKey]) -> DecodingError {
    .dataCorrupted(.init(codingPath: path, debugDescription: "the number \(literal.prefix(64)) does not fit the parameter's type"))
}

/// The one place a JSON value becomes a Swift scalar.
private func scalar<T>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
    if value == .null {
        throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
    }
    switch (type, value) {
    case (is Bool.Type, .bool(let b)): return b as! T
    case (is String.Type, .string(let s)): return s as! T
    case (is Double.Type, .number(let text)):
        guard let d = Double(text), d.isFinite else { throw unfitting(text, path) }
        return d as! T
    case (is Float.Type, .number(let text)):
        guard let f = Float(text), f.isFinite else { throw unfitting(text, path) }
        return f as! T
    default:
        throw mismatch(type, value, path)
    }
}

/// An integer of any width: exact literals, or integral values written with a fraction or exponent (`1e2`).
private func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
    guard case .number(let text) = value else {
        if value == .null {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
        throw mismatch(type, value, path)
    }
    if let exact = T(text) { return exact }
    if let d = Double(text), d.isFinite, d == d.rounded(), let v = T(exactly: d) { return v }
    throw unfitting(text, path)
}

private struct Index: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue!)" }
    init(_ i: Int) { intValue = i }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }
    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let v = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeValue(type, try member(key), codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(members), codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    private mutating func next<T>(_ type: T.Type) throws -> (JSONValue, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [Index(currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], codingPath + [Index(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (v, path) = try next(type)
        return try decodeValue(type, v, path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (v, path) = try next([String: JSONValue].self)
        return try ValueDecoder(value: v, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (v, path) = try next([JSONValue].self)
        return try ValueDecoder(value: v, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (v, path) = try next(JSONValue.self)
        return ValueDecoder(value: v, codingPath: path)
    }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type, value, codingPath) }
}

/// Scalars directly; `JSONValue` as it is; anything else through its own `init(from:)`. Every standard scalar
/// must be listed: theirs decodes through a single-value container, which comes back here.
private func decodeValue<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
    switch type {
    case is Bool.Type, is String.Type, is Double.Type, is Float.Type: return try scalar(type, value, path)
    case is Int.Type: return try integer(Int.self, value, path) as! T
    case is Int8.Type: return try integer(Int8.self, value, path) as! T
    case is Int16.Type: return try integer(Int16.self, value, path) as! T
    case is Int32.Type: return try integer(Int32.self, value, path) as! T
    case is Int64.Type: return try integer(Int64.self, value, path) as! T
    case is UInt.Type: return try integer(UInt.self, value, path) as! T
    case is UInt8.Type: return try integer(UInt8.self, value, path) as! T
    case is UInt16.Type: return try integer(UInt16.self, value, path) as! T
    case is UInt32.Type: return try integer(UInt32.self, value, path) as! T
    case is UInt64.Type: return try integer(UInt64.self, value, path) as! T
    case is JSONValue.Type: return value as! T
    default:
        // A string enum's own decoding would say "Cannot initialize FitMode from invalid String value fill":
        // Swift's words, not the client's. Name the accepted values instead.
        if case .string(let given) = value, let accepted = stringCases(of: type), !accepted.contains(given) {
            let list = accepted.map { "\"\($0)\"" }.joined(separator: ", ")
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "must be one of \(list); got \"\(given.prefix(64))\""))
        }
        return try T(from: ValueDecoder(value: value, codingPath: path))
    }
}

/// The raw values of a string enum that lists its cases (`CaseIterable`), or nil for any other type.
private func stringCases(of type: Any.Type) -> [String]? {
    guard let enumType = type as? any (CaseIterable & RawRepresentable).Type else { return nil }
    let values = rawStrings(enumType)
    return values.isEmpty ? nil : values
}

private func rawStrings<E: CaseIterable & RawRepresentable>(_: E.Type) -> [String] {
    E.allCases.compactMap { $0.rawValue as? String }
}
