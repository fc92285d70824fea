import JSONRPC
/// An output folder: `{"dir": "...", "create": true}`.
public struct OutputDirectorySpec: Sendable, Decodable {
    public var dir: String
    /// Create the folder (and parents) if missing (``createParam``'s default when absent: ``createsFolder``).
    public var create: Bool?
    /// Replace existing files that are not images the worker reads (see ``OutputWriter``); absent, the default of
    /// every output's `overwrite` (``overwritesFiles``).
    public var overwrite: Bool?

    /// `create`'s default, stated once for the code that reads it and the schema.
    static let createParam = FlagParam("create", default: true)

    /// `create`, or its default.
    public var createsFolder: Bool { Self.createParam.value(create) }
    /// `overwrite`, or its default (``OutputSpec``'s, the one every output shares).
    public var overwritesFiles: Bool { OutputSpec.overwriteParam.value(overwrite) }
}

extension OutputDirectorySpec {
    /// The shared schema `OutputDirectory` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("OutputDirectory", #"""
            {
              "type": "object",
              "properties": {
                "dir": {"type": "string", "minLength": 1},
                "create": \#(OutputDirectorySpec.createParam.schema(description: "Create the folder (and parents) if missing.")),
                "overwrite": \#(OutputSpec.overwriteParam.schema(description: "Replace existing files of the output names even if they are not images the worker reads (refused with -32005 without it)."))
              },
              "required": ["dir"],
              "additionalProperties": false
            }
            """#),
    ]
}
