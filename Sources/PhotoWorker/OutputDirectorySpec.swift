import JSONRPC
/// An output folder: `{"dir": "...", "create": true}`.
public struct OutputDirectorySpec: Sendable, Decodable {
    public var dir: String
    /// Create the folder (and parents) if missing; default true.
    public var create: Bool?
    /// Replace existing files that are not images the worker reads (see ``OutputWriter``); default false.
    public var overwrite: Bool?
}

extension OutputDirectorySpec {
    /// The shared schema `OutputDirectory` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("OutputDirectory", #"""
            {
              "type": "object",
              "properties": {
                "dir": {"type": "string", "minLength": 1},
                "create": {
                  "type": "boolean",
                  "default": true,
                  "description": "Create the folder (and parents) if missing."
                },
                "overwrite": {
                  "type": "boolean",
                  "default": false,
                  "description": "Replace existing files of the output names even if they are not images the worker reads (refused with -32005 without it)."
                }
              },
              "required": ["dir"],
              "additionalProperties": false
            }
            """#),
    ]
}
