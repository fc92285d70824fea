import Foundation
import JSONRPC

/// The worker's OpenRPC document (protocol/openrpc.json, embedded as a resource), the single
/// source of method schemas for `rpc.discover` and MCP's `tools/list`.
public enum OpenRPCDocument {
    /// The document's bytes as shipped.
    public static let bytes: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "openrpc", withExtension: "json"),
              let data = try? Data(contentsOf: url) else { return Array("{}".utf8) }
        return Array(data)
    }()

    /// The parsed document.
    public static let value: JSONValue = (try? JSONParser.parse(bytes)) ?? .object([:])

    /// The method description named `name`, if any.
    public static func method(_ name: String) -> JSONValue? {
        guard case .array(let methods) = value["methods"] else { return nil }
        return methods.first { $0["name"] == .string(name) }
    }
}

/// `rpc.discover`: the OpenRPC document.
struct RPCDiscoverMethod: RPCMethod {
    static let name = "rpc.discover"
    static let cost = MethodCost.immediate
    static let summary = "The OpenRPC document describing every method."

    func handle(_ params: NoParams, context: RequestContext) async throws -> RawJSONResult {
        RawJSONResult(raw: RawJSON(bytes: OpenRPCDocument.bytes))
    }
}

/// A result that is already JSON; encodes as itself.
struct RawJSONResult: Encodable, Sendable {
    var raw: RawJSON
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(try JSONParser.parse(raw.bytes))
    }
}
