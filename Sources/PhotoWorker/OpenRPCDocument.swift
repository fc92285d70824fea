import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

/// The worker's OpenRPC document, built from the code: the server's built-ins (``ServerContract``), each method
/// type's ``MethodContract`` (stated in its file beside its params, result and handler) and the shared schemas
/// stated beside the types they describe. It is the source of `rpc.discover`, MCP's `tools/list` and the
/// unknown-parameter check; protocol/openrpc.json is this document as `photoworker contract` prints it, and a test
/// fails when the committed file differs.
public enum OpenRPCDocument {
    /// The version of the wire protocol the document describes (not the worker's version).
    static let protocolVersion = "1.0"

    /// Every method and notification the worker registers besides the server's built-ins, in the document's
    /// order: ``Worker/listedMethods``' types.
    static let methods: [any RPCMethod.Type] = Worker.listedMethods.map(\.type)

    /// The shapes the methods share (`components.schemas`).
    static let schemas: [ContractSchema] = ServerContract.schemas + ImageSource.contractSchemas
        + OutputSpec.contractSchemas + OutputResult.contractSchemas + ImageInfoMethod.contractSchemas
        + OutlineSpec.contractSchemas + OutputDirectorySpec.contractSchemas + ImagePaletteMethod.contractSchemas
        + ImageStickerMethod.contractSchemas + PhotoProcessMethod.contractSchemas
        + MCPProgressReporter.contractSchemas + MCPEnvelope.contractSchemas + SessionPolicy.contractSchemas
        + MotionSummary.contractSchemas + BatchSource.contractSchemas + LivePhotoPairing.contractSchemas
        + AnimatedOutputSpec.contractSchemas + AnimatedOutputResult.contractSchemas + SubjectSpec.contractSchemas
        + ImageAnimatedStickerMethod.contractSchemas + PhotosProcessMethod.contractSchemas + AnimatedSpec.contractSchemas

    /// The errors the methods answer (`components.errors`).
    static let errors: [ContractSchema] = ServerContract.errors + WorkerError.contractErrors

    /// The parsed document.
    public static let value: JSONValue = {
        func named(_ components: [ContractSchema]) -> JSONValue {
            var byName: [String: JSONValue] = [:]
            for c in components {
                precondition(byName[c.name] == nil, "two components are named \(c.name)")
                byName[c.name] = c.schema
            }
            return .object(byName)
        }
        return [
            "openrpc": "1.3.2",
            "info": [
                "title": "photoworker",
                "version": .string(protocolVersion),
                "description": """
                    JSON-RPC 2.0 over stdio, one compact message per line. See protocol/README.md for framing, \
                    lifecycle, cancellation and streaming. `x-cost` is the scheduling class; `x-streams` lists the \
                    `$/progress` kinds a method may send (with the item result schema). The image methods refuse \
                    parameter names this document does not give them (-32602 naming the parameter); the built-ins \
                    (initialize and the rest) accept extra members, as LSP and MCP clients send them.
                    """,
            ],
            "methods": .array(ServerContract.entries(Worker.builtins) + methods.map { MethodContract.entry(of: $0) }),
            "components": ["schemas": named(schemas), "errors": named(errors)],
        ]
    }()

    /// The document as protocol/openrpc.json holds it (`photoworker contract`): members in a reading order
    /// (an entry's name and summary before its params), the rest sorted.
    public static let text: String = JSONPrettyWriter.text(value, leadingKeys: [
        "openrpc", "info", "methods", "components", "title", "version", "name", "summary", "description",
        "paramStructure", "params", "result", "errors", "x-cost", "x-streams", "code", "message", "$ref", "type",
        "required", "properties",
    ])

    /// The document on one line (a message must not contain a newline), serialised once.
    public static let compact: RawJSON = RawJSON(value)

    /// The method description named `name`, if any.
    public static func method(_ name: String) -> JSONValue? {
        guard case .array(let methods) = value["methods"] else { return nil }
        return methods.first { $0["name"] == .string(name) }
    }
}
