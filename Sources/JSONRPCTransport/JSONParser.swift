/// Why and where a line failed to parse; becomes the `data` of a -32700 reply.
public struct JSONParseError: Error, Sendable, Equatable {
    /// Byte offset into the line where the problem was found.
    public var offset: Int
    public var reason: String
}

/// A strict RFC 8259 parser over raw bytes.
///
/// Written for hostile input: invalid UTF-8, unescaped control characters, lone surrogates,
/// trailing garbage and deep nesting are all rejected with the byte offset; recursion is bounded by
/// ``maxDepth`` so 100,000 nested brackets cannot overflow the stack. Duplicate object keys are
/// accepted and the last one wins (as most parsers do).
public struct JSONParser: ~Copyable {
    /// Deepest nesting accepted. Real requests nest a handful of levels.
    public static let maxDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var pos = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses one complete JSON text (surrounding white space allowed).
    public static func parse(_ data: [UInt8]) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = data.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer)
            do throws(JSONParseError) {
                parser.skipWhitespace()
                let value = try parser.parseValue()
                parser.skipWhitespace()
                if parser.pos != buffer.count {
                    return .failure(JSONParseError(offset: parser.pos, reason: "unexpected data after the JSON value"))
                }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses a UTF-8 string (tests and the one-shot CLI).
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private func fail(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(offset: offset ?? pos, reason: reason)
    }

    private mutating func skipWhitespace() {
        while pos < bytes.count {
            switch bytes[pos] {
            case 0x20, 0x09, 0x0A, 0x0D: pos += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard pos < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[pos] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character \(describe(bytes[pos]))")
        }
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "0x" + String(byte, radix: 16, uppercase: true)
    }

    private mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        guard pos + n <= bytes.count else { throw fail("unexpected end of input in literal") }
        let w = word.utf8Start
        for i in 0..<n where bytes[pos + i] != w[i] {
            throw fail("invalid literal", at: pos)
        }
        pos += n
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw fail("nesting deeper than \(JSONParser.maxDepth) levels") }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        pos += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if pos < bytes.count && bytes[pos] == UInt8(ascii: "]") {
            pos += 1; depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard pos < bytes.count else { throw fail("unexpected end of input in array") }
            let c = bytes[pos]
            pos += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "]") { break }
            throw fail("expected ',' or ']' in array", at: pos - 1)
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        pos += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if pos < bytes.count && bytes[pos] == UInt8(ascii: "}") {
            pos += 1; depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else {
                throw fail(pos < bytes.count ? "expected a string key in object" : "unexpected end of input in object")
            }
            let key = try parseString()
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else { throw fail("expected ':' after object key") }
            pos += 1
            skipWhitespace()
            members[key] = try parseValue()
            skipWhitespace()
            guard pos < bytes.count else { throw fail("unexpected end of input in object") }
            let c = bytes[pos]
            pos += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "}") { break }
            throw fail("expected ',' or '}' in object", at: pos - 1)
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = pos
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < bytes.count, isDigit(bytes[pos]) else { throw fail("invalid number") }
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < bytes.count, isDigit(bytes[pos]) { throw fail("leading zeros are not allowed in numbers") }
        } else {
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
            pos += 1
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw fail("expected digits after '.'") }
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            pos += 1
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw fail("expected digits in exponent") }
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
        return .number(text)
    }

    @inline(__always) private func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    private mutating func parseString() throws(JSONParseError) -> String {
        let open = pos
        pos += 1
        let start = pos
        // Fast path: no escapes. Validate the raw bytes as UTF-8 in one go.
        while pos < bytes.count {
            let c = bytes[pos]
            if c == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<pos])
                guard let s = String(validating: slice, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in string", at: firstInvalidUTF8(slice, base: start))
                }
                pos += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw fail("unescaped control character in string") }
            pos += 1
        }
        guard pos < bytes.count else { throw fail("unterminated string", at: open) }
        // Slow path with escapes.
        var out: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<pos]))
        while pos < bytes.count {
            let c = bytes[pos]
            if c == UInt8(ascii: "\"") {
                pos += 1
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in string", at: open)
                }
                return s
            }
            if c < 0x20 { throw fail("unescaped control character in string") }
            if c != UInt8(ascii: "\\") {
                out.append(c); pos += 1; continue
            }
            pos += 1
            guard pos < bytes.count else { break }
            let e = bytes[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") else {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    pos += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("invalid low surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("unpaired surrogate in \\u escape")
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                out.append(contentsOf: UTF8.encode(u)!)
            default:
                throw fail("invalid escape sequence", at: pos - 2)
            }
        }
        throw fail("unterminated string", at: open)
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard pos + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[pos]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw fail("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }

    private func firstInvalidUTF8(_ slice: UnsafeBufferPointer<UInt8>, base: Int) -> Int {
        var it = slice.makeIterator()
        var decoder = UTF8()
        var offset = 0
        var last = 0
        while true {
            switch decoder.decode(&it) {
            case .scalarValue(let s):
                last = offset
                offset += UTF8.width(s)
            case .emptyInput: return base + offset
            case .error: return base + max(offset, last)
            }
        }
    }
}
