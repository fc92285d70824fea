import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

/// MCP `tools/call {"name", "arguments", "_meta": {"progressToken"}}`: runs the method in this
/// request's task (so cancellation and progress apply) and answers as MCP wants: the result as
/// `structuredContent` plus text, every written file as a `resource_link`, inline images only when the
/// output asked for them; failures as tool errors (`isError: true`). A batch's result carries every item
/// (``MCPTool/batch``), and its progress goes out only as MCP notifications (``MCPToolCallReporter``).
///
/// The long tools (``MCPToolCatalog/taskTools``) run as tasks (``MCPTaskStore``): when a 2025-11-25 host asks
/// (`"task": {"ttl"}`), or for every call of a 2026-07-28 host that declares the tasks extension in its
/// envelope's capabilities (the server decides there). The call is answered at once with the task; the tool runs
/// as a detached job of the worker's registry, whose result the host fetches with `tasks/get` or `tasks/result`.
struct ToolsCallMethod: RPCMethod {
    static let name = "tools/call"
    static let cost = MethodCost.compute
    static let summary = "MCP: run a tool."

    struct Params: Decodable, Sendable {
        var name: String
        var arguments: JSONValue?
        var _meta: JSONValue?
        /// MCP 2025-11-25 task augmentation: `{"ttl"?}`.
        var task: JSONValue?
        /// The tool's method with its arguments decoded and its memory estimated, when the call runs here (not sent).
        var prepared: PreparedCall?
        /// The budget's refusal of the tool's call, answered as a tool error rather than a JSON-RPC error.
        var refusal: RPCError?

        private enum CodingKeys: String, CodingKey { case name, arguments, _meta, task }
    }

    let table: MethodTable
    let tasks: MCPTaskStore
    /// This call is a task's job (it never starts another task; its progress goes to the task).
    var runsTask = false

    func handle(_ params: Params, context: RequestContext) async throws -> RawJSON {
        let envelope = try MCPEnvelope.parse(meta: params._meta)
        let modern = envelope?.isModern == true
        guard let method = MCPToolCatalog.method(forTool: params.name), let handler = table[method] else {
            throw Self.unknownTool(params.name)
        }
        let arguments = params.arguments ?? .object([:])
        if !runsTask, let request = try Self.taskRequested(params, method: method, envelope: envelope) {
            return try await startTask(params, method: method, arguments: arguments, ttlMs: request.ttlMs, modern: modern,
                                       context: context)
        }
        // A task's job records its progress for tasks/get; its id is the task's.
        let taskId: String? = if runsTask, case .string(let id)? = context.id { id } else { nil }
        let reporter = MCPToolCallReporter(progressToken: params._meta?["progressToken"]) { [tasks] done, total in
            if let taskId { tasks.progress(taskId, done: done, total: total) }
        }
        if let refusal = params.refusal { return Self.toolError(refusal, modern: modern) }
        do {
            let call = if let prepared = params.prepared { prepared } else {
                try await handler.prepare(arguments, context: context, estimating: false)
            }
            let raw = try await call(context: context.reporting(to: reporter))
            return try Self.result(raw, method: method, arguments: arguments, items: reporter.collected, modern: modern)
        } catch where error is CancellationError || Task.isCancelled {
            // A call cancelled mid-way may fail with its step's own error (a library's, a fetch's aborted transfer):
            // it is answered as cancelled, never as the tool's error.
            throw CancellationError()
        } catch {
            return Self.toolError(RPCError(error), modern: modern)
        }
    }

    static let estimatesMemory = true

    /// The tool's own estimate, its method prepared once (and kept for ``handle(_:context:)``); nothing for a call
    /// that starts a task (the task's job makes its own). A call the tool's method refuses is answered as a tool error,
    /// so its failure here is left for the call itself to report.
    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        guard let method = MCPToolCatalog.method(forTool: params.name), let handler = table[method] else { return 0 }
        if !runsTask, (try? Self.taskRequested(params, method: method, envelope: MCPEnvelope.parse(meta: params._meta))) != nil {
            return 0
        }
        guard let prepared = try? await handler.prepare(params.arguments ?? .object([:]), context: context) else { return 0 }
        if let budget = context.memoryBudget, prepared.memoryBytes > budget.bytes {
            // A method's error becomes a tool result (isError): the budget's refusal too, as the tool contract says.
            params.refusal = .overMemoryBudget(neededBytes: prepared.memoryBytes, budget: budget)
            return 0
        }
        params.prepared = prepared
        return prepared.memoryBytes
    }

    /// A call that starts a task only hands its work on (the task's job waits for its own slot), so it answers at
    /// once instead of queueing behind the jobs in flight; every other call waits for a slot as a compute job.
    func usesSlot(for params: JSONValue?) -> Bool {
        guard !runsTask, let name = params?["name"]?.stringValue, let method = MCPToolCatalog.method(forTool: name) else {
            return true
        }
        let decoded = Params(name: name, arguments: nil, _meta: params?["_meta"], task: params?["task"])
        // A call its params make fail is answered at once either way; `try?` would blur "no task" into "no envelope".
        do {
            let envelope = try MCPEnvelope.parse(meta: decoded._meta)
            return try Self.taskRequested(decoded, method: method, envelope: envelope) == nil
        } catch {
            return true
        }
    }

    /// A call to be run as a task.
    struct TaskRequest {
        /// The lifetime the host asked for (2025-11-25); nil: the worker's default.
        var ttlMs: Int?
    }

    /// Whether this call runs as a task; nil: it runs as usual.
    /// - Throws: -32602 for a malformed `task`; -32601 for a 2025-11-25 task on a tool that does not run as one
    ///   (MCP's rule for `taskSupport` absent or forbidden).
    static func taskRequested(_ params: Params, method: String, envelope: MCPEnvelope?) throws -> TaskRequest? {
        let long = MCPToolCatalog.taskTools.contains(method)
        if let envelope, envelope.isModern {
            // The server decides, for a client that declared the extension on this request.
            guard long, envelope.clientCapabilities["extensions"]?[MCPTaskStore.extensionID] != nil else { return nil }
            return TaskRequest()
        }
        guard let task = params.task, task != .null else { return nil }
        guard case .object = task else { throw RPCError.invalidParams(path: "task", "must be an object, got \(task.typeName)") }
        if let ttl = task["ttl"], ttl != .null, ttl.intValue == nil {
            throw RPCError.invalidParams(path: "task.ttl", "must be an integer number of milliseconds")
        }
        guard long else {
            throw RPCError(code: .methodNotFound, message: "Tool \(params.name) does not run as a task",
                           data: ["path": "task", "reason": .string("only \(MCPToolCatalog.taskTools.sorted().map(MCPToolCatalog.toolName).joined(separator: " and ")) run as tasks")])
        }
        return TaskRequest(ttlMs: task["ttl"]?.intValue)
    }

    /// Creates the task, starts the call as its job in the worker's registry, and answers with the task
    /// (`CreateTaskResult`) once `tasks/get` can find it.
    private func startTask(_ params: Params, method: String, arguments: JSONValue, ttlMs: Int?, modern: Bool,
                           context: RequestContext) async throws -> RawJSON {
        let record = tasks.create(tool: MCPToolCatalog.toolName(method), ttlMs: ttlMs)
        var jobParams: [String: JSONValue] = ["name": .string(params.name), "arguments": arguments]
        if case .object(var meta)? = params._meta {
            // The tasks extension sends no progress for tasks; a 2025-11-25 token stays valid for the task's life.
            if modern { meta["progressToken"] = nil }
            jobParams["_meta"] = .object(meta)
        }
        let job = MethodHandler(ToolsCallMethod(table: table, tasks: tasks, runsTask: true))
        let taskId = record.taskId
        let admission = await context.startDetachedJob(id: .string(taskId), handler: job, params: .object(jobParams)) {
            [tasks] response in tasks.finish(taskId, response: response)
        }
        guard admission == .admitted else {
            tasks.discard(taskId)
            throw RPCError(code: .overloaded, message: "overloaded", data: ["reason": "the job queue is full"])
        }
        let snapshot = await context.job(.string(taskId))
        if modern {
            var result = MCPEnvelope.resultFields
            result.merge(record.modernJSON(job: snapshot, detailed: false)) { _, new in new }
            result["resultType"] = "task"
            return RawJSON(.object(result))
        }
        return RawJSON([
            "task": .object(record.legacyJSON(job: snapshot)),
            "_meta": ["io.modelcontextprotocol/model-immediate-response": .string(
                "\(MCPToolCatalog.toolName(method)) is running as task \(taskId); its result will list every file it writes.")],
        ])
    }

    /// MCP's protocol error for a tool it does not list: -32602 whose message names the tool.
    static func unknownTool(_ name: String) -> RPCError {
        RPCError(code: .invalidParams, message: "Unknown tool: \(name)",
                 data: ["path": "name", "reason": .string("no tool is called \(name)"),
                        "tools": .array(MCPToolCatalog.toolNames.map(JSONValue.string))])
    }

    /// A method's error as a tool error the model can read and correct (MCP 2025-11-25: input validation
    /// errors are tool errors, not protocol errors).
    static func toolError(_ e: RPCError, modern: Bool) -> RawJSON {
        let text = "\(e.message) (\(e.code.rawValue))" + (e.data.map { ": \($0.jsonString)" } ?? "")
        var result: [String: JSONValue] = [
            "content": [["type": "text", "text": .string(text)]], "structuredContent": ["error": e.json], "isError": true,
        ]
        if modern { result.merge(MCPEnvelope.resultFields) { _, new in new } }
        return RawJSON(.object(result))
    }

    /// The tool result for the method's result `raw` (spliced in as encoded, as text and as structured
    /// content; parsed once, only to find the files and images it names) and a batch's `items`.
    static func result(_ raw: RawJSON, method: String, arguments: JSONValue,
                       items: [(index: Int, item: MCPToolCallReporter.Item)], modern: Bool) throws -> RawJSON {
        let parsed = try JSONParser.parse(raw.bytes)
        var media = mediaContent(in: parsed)
        // What the method changed of what was asked, said in the content too, where a host shows it to a person.
        var warnings: [String] = []
        if case .array(let list)? = parsed["warnings"] { warnings = list.compactMap(\.stringValue) }
        var structured = raw.bytes
        var failures: [String] = []
        if let batch = MCPToolCatalog.tool(for: method)?.batch {
            let sources: [JSONValue]
            if case .array(let a)? = arguments[batch.sourcesKey] { sources = a } else { sources = [] }
            var list: [JSONValue] = []
            for (index, item) in items {
                let source = index < sources.count ? describe(source: sources[index]) : .object([:])
                switch item {
                case .result(let r):
                    let value = try JSONParser.parse(r.bytes)
                    media += mediaContent(in: value)
                    list.append(["index": .int(index), "source": source, "result": value])
                case .error(let e):
                    list.append(["index": .int(index), "source": source, "error": e.json])
                    failures.append("\(source.jsonString): \(e.message) (\(e.code.rawValue))"
                                    + (e.data.map { ": \($0.jsonString)" } ?? ""))
                }
            }
            // The method's result is an object: its closing brace becomes the items' key.
            structured = Array(raw.bytes.dropLast()) + Array(#","items":"#.utf8) + JSONValue.array(list).serialized
                + [UInt8(ascii: "}")]
        }
        // A 2026-07-28 result's own members first (`_meta`, `resultType`), then the tool's.
        var out: [UInt8] = [UInt8(ascii: "{")]
        if modern {
            for (key, value) in MCPEnvelope.resultFields.sorted(by: { $0.key < $1.key }) {
                out += JSONValue.string(key).serialized + [UInt8(ascii: ":")] + value.serialized + [UInt8(ascii: ",")]
            }
        }
        out += Array(#""content":[{"text":"#.utf8)
        out += JSONValue.string(String(decoding: structured, as: UTF8.self)).serialized
        out += Array(#","type":"text"}"#.utf8)
        if !failures.isEmpty {
            let text = "\(failures.count) source\(failures.count == 1 ? "" : "s") failed:\n" + failures.joined(separator: "\n")
            out += [UInt8(ascii: ",")] + JSONValue.object(["type": "text", "text": .string(text)]).serialized
        }
        if !warnings.isEmpty {
            let text = "Warnings:\n" + warnings.map { "- " + $0 }.joined(separator: "\n")
            out += [UInt8(ascii: ",")] + JSONValue.object(["type": "text", "text": .string(text)]).serialized
        }
        for item in media { out += [UInt8(ascii: ",")] + item.serialized }
        out += Array(#"],"isError":false,"structuredContent":"#.utf8) + structured + [UInt8(ascii: "}")]
        return RawJSON(bytes: out)
    }

    /// A source as the host gave it, inline bytes abbreviated to their length.
    static func describe(source: JSONValue) -> JSONValue {
        guard case .object(var o) = source else { return source }
        if let data = o["data"]?.stringValue { o["data"] = .string("(\(data.utf8.count) base64 characters)") }
        return .object(o)
    }

    /// Written files as resource links (an object's `path`, a pack's `files` and `tray`); inline image
    /// data as image content.
    static func mediaContent(in value: JSONValue) -> [JSONValue] {
        var out: [JSONValue] = []
        func link(_ path: String, format: ImageFormat?) {
            let ext = (path as NSString).pathExtension.lowercased()
            let type = format?.mediaType ?? ImageFormat.named(byExtension: ext).first?.mediaType
            var l: [String: JSONValue] = [
                "type": "resource_link", "uri": .string(URL(fileURLWithPath: path).absoluteString),
                "name": .string((path as NSString).lastPathComponent),
            ]
            if let type { l["mimeType"] = .string(type) }
            out.append(.object(l))
        }
        func visit(_ v: JSONValue) {
            switch v {
            case .object(let o):
                let format = o["format"]?.stringValue.flatMap(ImageFormat.init(rawValue:))
                if let path = o["path"]?.stringValue {
                    link(path, format: format)
                } else if let data = o["data"]?.stringValue, o["format"] != nil {
                    out.append(["type": "image", "data": .string(data), "mimeType": .string((format ?? .png).mediaType)])
                }
                if case .array(let files)? = o["files"] { files.compactMap(\.stringValue).forEach { link($0, format: nil) } }
                if let tray = o["tray"]?.stringValue { link(tray, format: nil) }
                for (key, child) in o.sorted(by: { $0.key < $1.key }) where key != "files" { visit(child) }
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

extension ToolsCallMethod {
    static let contract: MethodContract = #"""
        {
          "description": "MCP: run a tool (`image_thumbnail` or `image.thumbnail`). A method's error becomes a result with `isError: true` and the JSON-RPC error in `structuredContent.error`; an unknown tool is -32602 `Unknown tool: NAME`. A batch tool (`photos_process`) gathers every item in `structuredContent.items` (`{index, source, result | error}`); every written file comes back as a `resource_link`.",
          "params": [
            {
              "name": "name",
              "schema": {
                "enum": [
                  "image_info",
                  "image.info",
                  "image_convert",
                  "image.convert",
                  "image_thumbnail",
                  "image.thumbnail",
                  "image_scale",
                  "image.scale",
                  "image_palette",
                  "image.palette",
                  "image_effect",
                  "image.effect",
                  "image_sticker",
                  "image.sticker",
                  "photo_process",
                  "photo.process",
                  "photos_process",
                  "photos.process",
                  "pack_export",
                  "pack.export",
                  "cache_stats",
                  "cache.stats",
                  "cache_clear",
                  "cache.clear"
                ]
              },
              "required": true,
              "description": "A tool from tools/list; the method's own name is accepted too."
            },
            {
              "name": "arguments",
              "schema": {"type": "object"},
              "required": false,
              "description": "The method's params."
            },
            {
              "name": "_meta",
              "schema": {"$ref": "#/components/schemas/MCPRequestMeta"},
              "required": false,
              "description": "With a progressToken, the method's progress goes out as MCP notifications/progress; without one, no progress is sent (never the native $/progress)."
            },
            {
              "name": "task",
              "schema": {"type": "object", "properties": {"ttl": {"type": "integer"}}},
              "required": false,
              "description": "MCP 2025-11-25: run as a task (photos_process and pack_export; other tools -32601); answered at once with `{task}`, the result fetched with tasks/get and tasks/result. A 2026-07-28 request whose envelope declares the io.modelcontextprotocol/tasks extension gets a task (`resultType: \"task\"`) for those tools without asking."
            }
          ],
          "result": {
            "name": "ToolResult",
            "schema": {
              "type": "object",
              "properties": {
                "content": {"type": "array", "items": {"type": "object", "required": ["type"]}},
                "structuredContent": {"type": "object"},
                "isError": {"type": "boolean"},
                "resultType": {"const": "complete"},
                "_meta": {"type": "object"}
              },
              "required": ["content", "structuredContent", "isError"],
              "additionalProperties": false
            }
          },
          "errors": [
            {"$ref": "#/components/errors/InvalidParams"},
            {"$ref": "#/components/errors/RequestCancelled"},
            {"$ref": "#/components/errors/ServerCancelled"},
            {"$ref": "#/components/errors/Overloaded"}
          ],
          "x-streams": {"mcpProgress": {"$ref": "#/components/schemas/MCPProgressParams"}}
        }
        """#
}
