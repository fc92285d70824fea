import Foundation
import JSONRPC
import JSONRPCTransport

/// MCP `tools/call {"name", "arguments", "_meta": {"progressToken"}}`: runs the method in this
/// request's task (so cancellation and progress apply) and answers as MCP wants: the result as
/// `structuredContent` plus text, written files as `resource_link`s, inline images only when the
/// output asked for them; failures as tool errors (`isError: true`).
struct ToolsCallMethod: RPCMethod {
    static let name = "tools/call"
    static let cost = MethodCost.compute
    static let summary = "MCP: run a tool."

    struct Params: Decodable, Sendable {
        var name: String
        var arguments: JSONValue?
    }

    let table: MethodTable

    func handle(_ params: Params, context: RequestContext) async throws -> RawJSON {
        guard let method = MCPToolCatalog.method(forTool: params.name), let handler = table[method] else {
            throw RPCError.invalidParams(path: "name", "unknown tool \(params.name)")
        }
        do {
            let raw = try await handler.call(params.arguments ?? .object([:]), context: context)
            // The method's result is spliced in as it was encoded, twice (as text and as structured
            // content); it is parsed once, only to find the files and images it names.
            let media = Self.mediaContent(in: try JSONParser.parse(raw.bytes))
            var out = Array(#"{"content":[{"text":"#.utf8)
            out += JSONValue.string(String(decoding: raw.bytes, as: UTF8.self)).serialized
            out += Array(#","type":"text"}"#.utf8)
            for item in media { out += [UInt8(ascii: ",")] + item.serialized }
            out += Array(#"],"isError":false,"structuredContent":"#.utf8) + raw.bytes + [UInt8(ascii: "}")]
            return RawJSON(bytes: out)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let e = RPCError(error)
            let text = "\(e.message) (\(e.code.rawValue))" + (e.data.map { ": \($0.jsonString)" } ?? "")
            return RawJSON(["content": [["type": "text", "text": .string(text)]], "structuredContent": ["error": e.json], "isError": true])
        }
    }

    /// Output files as resource links; inline image data as image content.
    static func mediaContent(in value: JSONValue) -> [JSONValue] {
        var out: [JSONValue] = []
        func visit(_ v: JSONValue) {
            switch v {
            case .object(let o):
                let format = o["format"]?.stringValue.flatMap(OutputSpec.Format.init(rawValue:))
                let mime = (format ?? .png).mediaType
                if let path = o["path"]?.stringValue, let format {
                    out.append([
                        "type": "resource_link", "uri": .string(URL(fileURLWithPath: path).absoluteString),
                        "name": .string((path as NSString).lastPathComponent),
                        "mimeType": .string(format.mediaType),
                    ])
                } else if let data = o["data"]?.stringValue, o["format"] != nil {
                    out.append(["type": "image", "data": .string(data), "mimeType": .string(mime)])
                }
                for (_, child) in o.sorted(by: { $0.key < $1.key }) { visit(child) }
            case .array(let a):
                a.forEach(visit)
            default:
                break
            }
        }
        visit(value)
        return out
    }
}
