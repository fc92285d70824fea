/// What a method handler knows about the request it serves, and how it streams.
public struct RequestContext: Sendable {
    /// The request id; nil for a notification (streaming is then a no-op).
    public let id: RequestID?
    public let method: String
    let registry: RequestRegistry?

    public init(id: RequestID?, method: String, registry: RequestRegistry?) {
        self.id = id
        self.method = method
        self.registry = registry
    }

    /// Streams `{"kind":"progress","done":..,"total":..,"message":..}` for this request.
    public func progress(done: Int, total: Int, message: String? = nil) async {
        guard let id, let registry else { return }
        var p: [String: JSONValue] = ["id": id.json, "kind": "progress", "done": .int(done), "total": .int(total)]
        if let message { p["message"] = .string(message) }
        await registry.emit(id, params: .object(p), isProgress: true)
    }

    /// Streams one finished child result: `{"kind":"item","index":i,"result":{...}}`.
    public func item(index: Int, result: some Encodable) async {
        guard let id, let registry else { return }
        let value: JSONValue
        do {
            value = try JSONParser.parse(RawJSON(encoding: result).bytes)
        } catch {
            await item(index: index, error: error)
            return
        }
        await registry.emit(id, params: ["id": id.json, "kind": "item", "index": .int(index), "result": value], isProgress: false)
    }

    /// Streams one failed child: `{"kind":"item","index":i,"error":{code,message,data}}`.
    public func item(index: Int, error: any Error) async {
        guard let id, let registry else { return }
        await registry.emit(id, params: ["id": id.json, "kind": "item", "index": .int(index), "error": RPCError(error).json], isProgress: false)
    }
}
