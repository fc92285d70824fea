/// One parsed and validated JSON-RPC message from the client.
public enum IncomingMessage: Sendable, Equatable {
    /// A request (has an id): gets exactly one response.
    case request(id: RequestID, method: String, params: JSONValue?)
    /// A notification (no id): never answered.
    case notification(method: String, params: JSONValue?)
    /// A response to a request the server sent the client (``Peer/request(_:params:timeout:)``).
    case response(id: RequestID, result: JSONValue?, error: JSONValue?)
    /// Not a valid request; answered with this error, echoing the id when it could be read.
    case invalid(id: RequestID?, error: RPCError)

    /// Validates one element (a top-level object or a batch member) against JSON-RPC 2.0.
    public init(_ value: JSONValue) {
        guard case .object(let o) = value else {
            self = .invalid(id: nil, error: .invalidRequest("a request must be a JSON object, got \(value.typeName)"))
            return
        }
        var id: RequestID?
        var hasID = false
        if let raw = o["id"] {
            hasID = true
            id = RequestID(json: raw)
            if id == nil {
                self = .invalid(id: nil, error: .invalidRequest("\"id\" must be a string or a number, got \(raw.typeName)"))
                return
            }
        }
        guard o["jsonrpc"] == .string("2.0") else {
            self = .invalid(id: id, error: .invalidRequest("\"jsonrpc\" must be exactly \"2.0\""))
            return
        }
        if o["method"] == nil, hasID, let id, o["result"] != nil || o["error"] != nil {
            self = .response(id: id, result: o["result"], error: o["error"])
            return
        }
        guard let methodValue = o["method"] else {
            self = .invalid(id: id, error: .invalidRequest("\"method\" is missing"))
            return
        }
        guard case .string(let method) = methodValue else {
            self = .invalid(id: id, error: .invalidRequest("\"method\" must be a string, got \(methodValue.typeName)"))
            return
        }
        // `"params": null` counts as omitted: stock LSP clients send it for methods without
        // parameters (Emacs' jsonrpc.el for every nil params, VS Code for `shutdown` and `exit`).
        let params = o["params"] == .null ? nil : o["params"]
        if let params {
            switch params {
            case .object, .array: break
            default:
                self = .invalid(id: id, error: .invalidRequest("\"params\" must be an object or an array, got \(params.typeName)"))
                return
            }
        }
        if hasID, let id {
            self = .request(id: id, method: method, params: params)
        } else {
            self = .notification(method: method, params: params)
        }
    }
}
