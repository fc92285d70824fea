import JSONRPCTransport

/// The server's own part of the wire contract: its built-in methods, the notifications it handles itself, the
/// shapes they share and the JSON-RPC errors every server may answer. An application's OpenRPC document starts
/// from these and adds its methods' ``MethodContract``s.
public enum ServerContract {
    /// The entries of the built-ins a server with `builtins` registers, in the order a reader meets them:
    /// the lifecycle, cancellation, liveness, the job registry, the counters.
    public static func entries(_ builtins: ServerConfiguration.Builtins) -> [JSONValue] {
        var entries = [
            MethodContract.entry(of: InitializeMethod.self),
            MethodContract.entry(of: ShutdownMethod.self),
            exit.entry(name: "exit", summary: "Notification: end the process (status 0 after shutdown, 1 otherwise).", cost: .immediate),
            cancelRequest.entry(name: "$/cancelRequest", summary: "Notification: cancel request `id`; it then gets exactly one final reply (-32800, or its result if it had finished).", cost: .immediate),
            cancelled.entry(name: "notifications/cancelled", summary: "Notification (MCP spelling of $/cancelRequest).", cost: .immediate),
            MethodContract.entry(of: PingMethod.self),
        ]
        if builtins.jobs {
            entries.append(MethodContract.entry(of: JobsListMethod.self))
            entries.append(MethodContract.entry(of: JobsCancelMethod.self))
        }
        if let stats = builtins.statsMethod { entries.append(MethodContract.entry(of: StatsMethod.self, name: stats)) }
        return entries
    }

    /// Shapes the built-ins' params and results refer to.
    public static let schemas: [ContractSchema] = [
        ContractSchema("RequestId", #"""
            {"type": ["string", "integer"], "description": "A request id: a string or an integer."}
            """#),
        ContractSchema("Empty", #"""
            {"type": "object", "additionalProperties": false, "maxProperties": 0}
            """#),
        ContractSchema("ErrorObject", #"""
            {
              "type": "object",
              "properties": {"code": {"type": "integer"}, "message": {"type": "string"}, "data": {}},
              "required": ["code", "message"],
              "additionalProperties": false
            }
            """#),
        ContractSchema("ProgressParams", #"""
            {
              "description": "Params of the `$/progress` notification the worker sends for a request before its final reply.",
              "oneOf": [
                {
                  "type": "object",
                  "properties": {
                    "id": {"$ref": "#/components/schemas/RequestId"},
                    "kind": {"const": "progress"},
                    "done": {"type": "number"},
                    "total": {"type": "number"},
                    "message": {"type": "string"}
                  },
                  "required": ["id", "kind"],
                  "additionalProperties": false
                },
                {
                  "type": "object",
                  "properties": {
                    "id": {"$ref": "#/components/schemas/RequestId"},
                    "kind": {"const": "item"},
                    "index": {"type": "integer", "minimum": 0},
                    "result": {}
                  },
                  "required": ["id", "kind", "index", "result"],
                  "additionalProperties": false
                },
                {
                  "type": "object",
                  "properties": {
                    "id": {"$ref": "#/components/schemas/RequestId"},
                    "kind": {"const": "item"},
                    "index": {"type": "integer", "minimum": 0},
                    "error": {"$ref": "#/components/schemas/ErrorObject"}
                  },
                  "required": ["id", "kind", "index", "error"],
                  "additionalProperties": false
                }
              ]
            }
            """#),
        ContractSchema("Job", #"""
            {
              "type": "object",
              "properties": {
                "id": {"$ref": "#/components/schemas/RequestId"},
                "method": {"type": "string"},
                "state": {
                  "enum": ["queued", "waitingForMemory", "running", "cancelling"],
                  "description": "queued: waiting for a job slot (or for its estimate); waitingForMemory: its estimate does not fit beside the running jobs' under the memory budget; cancelling: asked to stop, not ended yet."
                },
                "memoryBytes": {"type": "integer", "minimum": 0, "description": "The job's estimated peak memory, once estimated."},
                "startedAt": {"type": "string", "format": "date-time", "description": "ISO 8601, UTC."},
                "elapsedMs": {"type": "integer", "minimum": 0},
                "progress": {"description": "The latest $/progress params, if any."}
              },
              "required": ["id", "method", "state", "startedAt", "elapsedMs"],
              "additionalProperties": false
            }
            """#),
    ]

    /// The errors of JSON-RPC itself and of the server's scheduling (codes -32700 to -32600, -32800, -32802,
    /// -32000), with what their `data` holds.
    public static let errors: [ContractSchema] = [
        ContractSchema("ParseError", #"""
            {
              "code": -32700,
              "message": "parse error",
              "x-data-schema": {
                "type": "object",
                "properties": {"reason": {"type": "string"}, "offset": {"type": "integer", "minimum": 0}},
                "required": ["reason"],
                "additionalProperties": false
              },
              "x-description": "The line is not JSON (or is over the line limit). Always answered with id null."
            }
            """#),
        ContractSchema("InvalidRequest", #"""
            {
              "code": -32600,
              "message": "invalid request",
              "x-data-schema": {
                "type": "object",
                "properties": {"reason": {"type": "string"}, "method": {"type": "string"}},
                "required": ["reason"],
                "additionalProperties": false
              },
              "x-description": "Valid JSON but not a valid request (also: an id already in flight, or sent while shutting down)."
            }
            """#),
        ContractSchema("MethodNotFound", #"""
            {
              "code": -32601,
              "message": "method not found",
              "x-data-schema": {
                "type": "object",
                "properties": {"method": {"type": "string"}},
                "required": ["method"],
                "additionalProperties": false
              }
            }
            """#),
        ContractSchema("InvalidParams", #"""
            {
              "code": -32602,
              "message": "invalid params",
              "x-data-schema": {
                "type": "object",
                "properties": {
                  "path": {"type": "string"},
                  "reason": {"type": "string"},
                  "tools": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "An unknown MCP tool: the tools there are."
                  }
                },
                "required": ["path", "reason"],
                "additionalProperties": false
              },
              "x-description": "`path` names the parameter (`source.path`, `effects[2].blur`, or `params`). The image methods (image.*, photo.process, photos.process, pack.export) also refuse names they do not take, at any depth where a schema here says `additionalProperties: false`: `{\"path\": \"segmentor\", \"reason\": \"unknown parameter; expected one of: ...\"}`."
            }
            """#),
        ContractSchema("InternalError", #"""
            {
              "code": -32603,
              "message": "internal error",
              "x-data-schema": {"type": "object", "properties": {"reason": {"type": "string"}}, "required": []},
              "x-description": "A bug; `data` says what failed."
            }
            """#),
        ContractSchema("RequestCancelled", #"""
            {
              "code": -32800,
              "message": "request cancelled",
              "x-data-schema": {"type": "null"},
              "x-description": "Cancelled by the client ($/cancelRequest, notifications/cancelled, jobs.cancel)."
            }
            """#),
        ContractSchema("ServerCancelled", #"""
            {
              "code": -32802,
              "message": "request cancelled by the server",
              "x-data-schema": {
                "type": "object",
                "properties": {"reason": {"type": "string"}},
                "required": ["reason"],
                "additionalProperties": false
              },
              "x-description": "Drain timeout after stdin closed, shutdown, or a signal."
            }
            """#),
        ContractSchema("OverMemoryBudget", #"""
            {
              "code": -32007,
              "message": "the job needs more memory than the worker may use",
              "x-data-schema": {
                "type": "object",
                "properties": {
                  "reason": {"type": "string"},
                  "neededBytes": {"type": "integer", "minimum": 0},
                  "budgetBytes": {"type": "integer", "minimum": 0}
                },
                "required": ["reason", "neededBytes", "budgetBytes"],
                "additionalProperties": false
              },
              "x-description": "The job's estimated peak alone exceeds the memory budget (--max-memory, or the default from the machine's or the container's memory); refused before any pixel is decoded."
            }
            """#),
        ContractSchema("Overloaded", #"""
            {
              "code": -32000,
              "message": "overloaded",
              "x-data-schema": {
                "type": "object",
                "properties": {"reason": {"type": "string"}, "maxQueue": {"type": "integer", "minimum": 0}},
                "required": ["reason"],
                "additionalProperties": false
              },
              "x-description": "The compute queue is full (--max-queue); retry later."
            }
            """#),
    ]

    static let exit: MethodContract = #"""
        {"params": []}
        """#

    static let cancelRequest: MethodContract = #"""
        {"params": [{"name": "id", "schema": {"$ref": "#/components/schemas/RequestId"}, "required": true}]}
        """#

    static let cancelled: MethodContract = #"""
        {
          "params": [
            {"name": "requestId", "schema": {"$ref": "#/components/schemas/RequestId"}, "required": true},
            {"name": "reason", "schema": {"type": "string"}, "required": false}
          ]
        }
        """#
}
