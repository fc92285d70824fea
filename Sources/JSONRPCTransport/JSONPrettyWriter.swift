/// Serialises ``JSONValue`` for people to read: two-space indents, one member per line, keys in a stated
/// order. Deterministic, so a generated document (protocol/openrpc.json) can be compared byte for byte with
/// what the code produces.
package enum JSONPrettyWriter {
    /// `value` as text ending in a newline. Keys named in `leadingKeys` come first, in that order; the rest
    /// follow sorted, as ``JSONWriter`` sorts them.
    package static func text(_ value: JSONValue, leadingKeys: [String] = []) -> String {
        var rank: [String: Int] = [:]
        for (i, key) in leadingKeys.enumerated() where rank[key] == nil { rank[key] = i }
        var out: [UInt8] = []
        write(value, depth: 0, rank: rank, into: &out)
        out.append(0x0A)
        return String(decoding: out, as: UTF8.self)
    }

    private static func newline(_ depth: Int, into out: inout [UInt8]) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    private static func write(_ value: JSONValue, depth: Int, rank: [String: Int], into out: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth + 1, into: &out)
                write(e, depth: depth + 1, rank: rank, into: &out)
            }
            newline(depth, into: &out)
            out.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            out.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted { a, b in
                switch (rank[a], rank[b]) {
                case let (x?, y?): return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                case (nil, nil): return a < b
                }
            }
            for (i, key) in keys.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth + 1, into: &out)
                JSONWriter.writeString(key, into: &out)
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
                write(members[key]!, depth: depth + 1, rank: rank, into: &out)
            }
            newline(depth, into: &out)
            out.append(UInt8(ascii: "}"))
        default:
            JSONWriter.write(value, into: &out)
        }
    }
}
