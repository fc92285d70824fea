import Foundation

/// Already-serialised JSON: what a method handler returns as its result. A handler may return one
/// as its `Result` too: it is passed through as it is, never parsed and encoded again.
public struct RawJSON: Sendable, Equatable, Encodable {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public init(_ value: JSONValue) { self.bytes = value.serialized }

    /// Encodes a typed result with `JSONEncoder` (compact, sorted keys for stable output,
    /// slashes unescaped).
    public init(encoding value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        self.bytes = Array(try encoder.encode(value))
    }

    public static let emptyObject = RawJSON(bytes: Array("{}".utf8))

    /// Only for a `RawJSON` nested in another result (at the top level it passes through).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(try JSONParser.parse(bytes))
    }
}
