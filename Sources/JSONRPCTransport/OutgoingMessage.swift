/// Builders for the bytes of outgoing messages (without the trailing newline).
///
/// Results arrive pre-serialised (``RawJSON``) so a large inline image is spliced in once
/// rather than re-parsed.
public enum OutgoingMessage {
    static let prefix: [UInt8] = Array(#"{"jsonrpc":"2.0","id":"#.utf8)

    public static func success(id: RequestID, result: RawJSON) -> [UInt8] {
        var out = prefix
        out.reserveCapacity(prefix.count + result.bytes.count + 32)
        JSONWriter.write(id.json, into: &out)
        out.append(contentsOf: #","result":"#.utf8)
        out.append(contentsOf: result.bytes)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// An error response; `id` nil is written as `null` (parse errors, unreadable ids).
    public static func failure(id: RequestID?, error: RPCError) -> [UInt8] {
        var out = prefix
        JSONWriter.write(id?.json ?? .null, into: &out)
        out.append(contentsOf: #","error":"#.utf8)
        JSONWriter.write(error.json, into: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    public static func notification(method: String, params: JSONValue) -> [UInt8] {
        var out: [UInt8] = Array(#"{"jsonrpc":"2.0","method":"#.utf8)
        JSONWriter.writeString(method, into: &out)
        out.append(contentsOf: #","params":"#.utf8)
        JSONWriter.write(params, into: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// A notification whose params object is assembled from already-serialised members.
    package static func notification(method: String, rawParams: [UInt8]) -> [UInt8] {
        var out: [UInt8] = Array(#"{"jsonrpc":"2.0","method":"#.utf8)
        JSONWriter.writeString(method, into: &out)
        out.append(contentsOf: #","params":"#.utf8)
        out.append(contentsOf: rawParams)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// A batch reply: the members joined into one JSON array.
    public static func batch(_ members: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (i, m) in members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: m)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
