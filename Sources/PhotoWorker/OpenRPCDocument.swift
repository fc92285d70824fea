import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

/// The worker's OpenRPC document (protocol/openrpc.json, embedded as a resource), the single
/// source of method schemas for `rpc.discover` and MCP's `tools/list`.
public enum OpenRPCDocument {
    /// The document's bytes as shipped (`{}` when the bundle is not beside the executable).
    public static let bytes: [UInt8] = {
        guard let url = BundledResource.url("openrpc.json", bundle: "PhotoWorker_PhotoWorker.resources"), let data = try? Data(contentsOf: url) else { return Array("{}".utf8) }
        return Array(data)
    }()

    /// The parsed document.
    public static let value: JSONValue = (try? JSONParser.parse(bytes)) ?? .object([:])

    /// The document on one line (the file is pretty-printed; a message must not contain a newline),
    /// serialised once.
    public static let compact: RawJSON = RawJSON(value)

    /// The method description named `name`, if any.
    public static func method(_ name: String) -> JSONValue? {
        guard case .array(let methods) = value["methods"] else { return nil }
        return methods.first { $0["name"] == .string(name) }
    }
}
