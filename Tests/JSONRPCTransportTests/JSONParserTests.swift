@testable import JSONRPCTransport
import Testing

@Suite(.timeLimit(.minutes(10)))
struct JSONParserTests {
    @Test func parsesEveryKind() throws {
        let v = try JSONParser.parse(#" {"a": [1, -2.5e3, true, false, null, "x\n\u00e9\ud83d\ude00"], "b": {}} "#)
        #expect(v["a"] == [1, .number("-2.5e3"), true, false, nil, "x\né😀"])
        #expect(v["b"] == [:])
    }

    @Test(arguments: [
        ("", "unexpected end of input"),
        ("{", "unexpected end of input in object"),
        ("[1,]", "unexpected character ']'"),
        ("01", "leading zeros are not allowed in numbers"),
        ("1.", "expected digits after '.'"),
        (#""abc"#, "unterminated string"),
        (#""\x""#, "invalid escape sequence"),
        (#""\ud800""#, "unpaired surrogate in \\u escape"),
        ("\"a\u{01}\"", "unescaped control character in string"),
        ("{} x", "unexpected data after the JSON value"),
        ("tru", "unexpected end of input in literal"),
    ])
    func rejectsWithAReason(_ text: String, _ reason: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        do {
            _ = try JSONParser.parse(text)
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func invalidUTF8IsReportedWithItsOffset() {
        do {
            _ = try JSONParser.parse([0x22, 0x61, 0xC3, 0x28, 0x22])
            Issue.record("accepted invalid UTF-8")
        } catch {
            #expect(error.reason == "invalid UTF-8 in string")
            #expect(error.offset == 2)
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        do {
            _ = try JSONParser.parse(deep)
            Issue.record("accepted 100,000 levels")
        } catch {
            #expect(error.reason.contains("nesting deeper than"))
            #expect(error.offset == JSONParser.maxDepth)
        }
        let ok = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? JSONParser.parse(ok)) != nil)
    }

    @Test func numbersKeepTheirLiteralText() throws {
        #expect(try JSONParser.parse("12345678901234567890123") == .number("12345678901234567890123"))
        #expect(try JSONParser.parse("1e400").doubleValue == .infinity)
        #expect(try JSONParser.parse("42").intValue == 42)
        #expect(try JSONParser.parse("4.5").intValue == nil)
    }

    @Test func duplicateKeysLastWins() throws {
        #expect(try JSONParser.parse(#"{"a":1,"a":2}"#) == ["a": 2])
    }

    @Test func serialisationRoundTrips() throws {
        let v: JSONValue = ["s": "quote\" back\\ nl\n tab\t ctl\u{01} é", "n": .number("-1.5e-3"), "a": [nil, true]]
        #expect(try JSONParser.parse(v.serialized) == v)
        #expect(JSONValue.string("\u{01}").jsonString == #""\u0001""#)
    }
}
