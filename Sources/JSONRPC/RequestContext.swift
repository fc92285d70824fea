import JSONRPCTransport

/// What a method handler knows about the request it serves, and how it streams.
public struct RequestContext: Sendable {
    /// The request id; nil for a notification (streaming is then a no-op).
    public let id: RequestID?
    public let method: String
    let registry: RequestRegistry?
    /// How this request's progress goes out, chosen once when it arrives: a dialect's reporter
    /// (MCP's `notifications/progress` for a `progressToken`), or nil for the native `$/progress`.
    let reporter: (any ProgressReporter)?
    /// The client (nil in contexts built without a server, such as in-process tests).
    public let peer: Peer?
    /// The memory budget jobs are admitted against (nil without one): what a method that runs another checks that
    /// method's estimate against, to answer a refusal its own way (MCP's `tools/call` as a tool error).
    public let memoryBudget: MemoryBudget?
    /// A compute job's place in the order of admission (lower was admitted earlier), once it holds its slot: what
    /// the application schedules the job's work by. Nil for other methods, and while a job's memory is estimated.
    public let admissionOrder: UInt64?

    public init(id: RequestID?, method: String, registry: RequestRegistry?, reporter: (any ProgressReporter)? = nil,
                peer: Peer? = nil, memoryBudget: MemoryBudget? = nil, admissionOrder: UInt64? = nil) {
        self.id = id
        self.method = method
        self.registry = registry
        self.reporter = reporter
        self.peer = peer
        self.memoryBudget = memoryBudget
        self.admissionOrder = admissionOrder
    }

    /// This context for a compute job admitted in place `order`.
    func admitted(_ order: UInt64) -> RequestContext {
        RequestContext(id: id, method: method, registry: registry, reporter: reporter, peer: peer,
                       memoryBudget: memoryBudget, admissionOrder: order)
    }

    /// This context with its progress and items going to `reporter` instead (a dialect's method that runs
    /// another method, such as MCP's `tools/call`, decides how that method's progress goes out).
    public func reporting(to reporter: any ProgressReporter) -> RequestContext {
        RequestContext(id: id, method: method, registry: registry, reporter: reporter, peer: peer, memoryBudget: memoryBudget,
                       admissionOrder: admissionOrder)
    }

    /// Sends a notification that belongs to this request (a dialect's, such as MCP's acknowledgement of a
    /// subscription); dropped once the request has its reply, as progress is.
    public func notify(method: String, params: JSONValue) async {
        guard let id, let registry else { return }
        await registry.emit(id, method: method, params: params)
    }

    /// Sends the reporter's notification for this update, if it makes one.
    private func report(_ reporter: any ProgressReporter, done: Int?, total: Int?, message: String?) async {
        guard let id, let registry, let n = reporter.notification(done: done, total: total, message: message) else { return }
        await registry.emit(id, method: n.method, params: n.params)
    }

    /// Streams `{"kind":"progress","done":..,"total":..,"message":..}` for this request.
    public func progress(done: Int, total: Int, message: String? = nil) async {
        guard let id, let registry else { return }
        if let reporter {
            await report(reporter, done: done, total: total, message: message)
            return
        }
        var p: [String: JSONValue] = ["id": id.json, "kind": "progress", "done": .int(done), "total": .int(total)]
        if let message { p["message"] = .string(message) }
        await registry.emit(id, params: .object(p), isProgress: true)
    }

    /// Streams one finished child result: `{"kind":"item","index":i,"result":{...}}`.
    public func item(index: Int, result: some Encodable) async {
        guard let id, let registry else { return }
        let encoded: RawJSON
        do {
            encoded = try RawJSON(encoding: result)
        } catch {
            await item(index: index, error: error)
            return
        }
        if let reporter {
            reporter.item(index: index, result: encoded)
            await report(reporter, done: nil, total: nil, message: "item \(index) done")
            return
        }
        // {"id":…,"index":…,"kind":"item","result":…} with keys in the writer's sorted order.
        var params: [UInt8] = Array(#"{"id":"#.utf8)
        JSONWriter.write(id.json, into: &params)
        params.append(contentsOf: #","index":\#(index),"kind":"item","result":"#.utf8)
        params.append(contentsOf: encoded.bytes)
        params.append(UInt8(ascii: "}"))
        await registry.emitItem(id, rawParams: params)
    }

    /// Streams one failed child: `{"kind":"item","index":i,"error":{code,message,data}}`.
    public func item(index: Int, error: any Error) async {
        guard let id, let registry else { return }
        if let reporter {
            reporter.item(index: index, error: RPCError(error))
            await report(reporter, done: nil, total: nil, message: "item \(index) failed: \(RPCError(error).message)")
            return
        }
        await registry.emit(id, params: ["id": id.json, "kind": "item", "index": .int(index), "error": RPCError(error).json], isProgress: false)
    }
}
