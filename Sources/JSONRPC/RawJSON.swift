import Foundation

/// Already-serialised JSON: what a method handler returns as its result.
public struct RawJSON: Sendable, Equatable {
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
}
