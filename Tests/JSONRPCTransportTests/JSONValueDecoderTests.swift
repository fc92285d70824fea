import JSONRPCTransport
import Testing

/// Params decoded straight from the parsed value: types, optionals, paths of what is wrong.
@Suite(.timeLimit(.minutes(10)))
struct JSONValueDecoderTests {
    struct Params: Decodable, Equatable {
        struct Effect: Decodable, Equatable { var blur: Double? }
        enum Fit: String, Decodable { case contain, cover }
        var size: Int
        var name: String?
        var fit: Fit?
        var effects: [Effect] = []
        var extra: JSONValue?

        enum CodingKeys: String, CodingKey { case size, name, fit, effects, extra }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            size = try c.decode(Int.self, forKey: .size)
            name = try c.decodeIfPresent(String.self, forKey: .name)
            fit = try c.decodeIfPresent(Fit.self, forKey: .fit)
            effects = try c.decodeIfPresent([Effect].self, forKey: .effects) ?? []
            extra = try c.decodeIfPresent(JSONValue.self, forKey: .extra)
        }
    }

    private func decode(_ text: String) throws -> Params {
        try JSONValueDecoder().decode(Params.self, from: try JSONParser.parse(Array(text.utf8)))
    }

    /// The coding path of a decoding failure, as the -32602 `data.path` spells it.
    private func failurePath(_ text: String) -> String {
        do {
            _ = try decode(text)
            return "decoded"
        } catch let error as DecodingError {
            let context: DecodingError.Context
            switch error {
            case .keyNotFound(let key, let c): return (c.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): context = c
            @unknown default: return "unknown"
            }
            return context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        } catch {
            return "\(error)"
        }
    }

    @Test func decodesNestedValues() throws {
        let p = try decode(#"{"size":256,"name":null,"fit":"cover","effects":[{"blur":2.5},{}],"extra":{"a":[1]}}"#)
        #expect(p.size == 256 && p.name == nil && p.fit == .cover, "\(p)")
        #expect(p.effects == [.init(blur: 2.5), .init(blur: nil)])
        #expect(p.extra == ["a": [1]])
        #expect(try decode(#"{"size":1e2}"#).size == 100)  // an integral value in any notation
    }

    /// Every standard scalar decodes (one missing from the decoder's list would recurse through its own
    /// single-value container), and a value out of its range is named.
    @Test func everyStandardScalarDecodes() throws {
        struct Scalars: Decodable {
            var a: Int8, b: Int16, c: Int32, d: Int64, e: UInt, f: UInt8, g: UInt16, h: UInt32, i: UInt64
            var j: Float, k: Double, l: Bool, m: String, n: Int
        }
        let text = #"{"a":-8,"b":-16,"c":-32,"d":-64,"e":1,"f":8,"g":16,"h":32,"i":64,"j":0.5,"k":0.25,"l":true,"m":"x","n":7}"#
        let s = try JSONValueDecoder().decode(Scalars.self, from: try JSONParser.parse(Array(text.utf8)))
        #expect(s.a == -8 && s.b == -16 && s.g == 16 && s.j == 0.5 && s.l && s.m == "x", "\(s)")
        #expect(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Scalars.self, from: try JSONParser.parse(Array(text.replacingOccurrences(of: "\"a\":-8", with: "\"a\":300").utf8)))
        }
    }

    @Test func failuresNameTheirPath() {
        #expect(failurePath(#"{}"#) == "size")
        #expect(failurePath(#"{"size":"big"}"#) == "size")
        #expect(failurePath(#"{"size":null}"#) == "size")
        #expect(failurePath(#"{"size":7.5}"#) == "size")
        #expect(failurePath(#"{"size":1e400}"#) == "size")
        #expect(failurePath(#"{"size":99999999999999999999}"#) == "size")
        #expect(failurePath(#"{"size":1,"fit":"stretch"}"#) == "fit")
        #expect(failurePath(#"{"size":1,"effects":[{"blur":1},{"blur":1e400}]}"#) == "effects.[1].blur")
        #expect(failurePath(#"{"size":1,"effects":{"blur":1}}"#) == "effects")
    }
}
