import Synchronization

/// The client as the server sees it: what it said in `initialize`, and requests the server sends
/// to it (MCP's `roots/list`, say), whose responses the read loop routes back here.
public final class Peer: Sendable {
    private struct State {
        var session = ClientSession()
        var nextID = 1
        var pending: [RequestID: CheckedContinuation<JSONValue, any Error>] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    private let writer: MessageWriter

    init(writer: MessageWriter) {
        self.writer = writer
    }

    /// What the client said in `initialize` (defaults until it has).
    public var session: ClientSession {
        state.withLock { $0.session }
    }

    func setSession(_ session: ClientSession) {
        state.withLock { $0.session = session }
    }

    /// Sends a request to the client and waits for its response.
    /// - Throws: the client's error as an ``RPCError``, ``PeerError/timedOut`` after `timeout`,
    ///   ``PeerError/closed`` when the session ends first, or `CancellationError`.
    public func request(_ method: String, params: JSONValue? = nil, timeout: Duration = .seconds(10)) async throws -> JSONValue {
        let id = state.withLock { s -> RequestID in
            defer { s.nextID += 1 }
            return .string("photoworker-\(s.nextID)")
        }
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.resolve(id, with: .failure(PeerError.timedOut(method: method)))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let accepted = state.withLock { s -> Bool in
                    guard !s.closed, !Task.isCancelled else { return false }
                    s.pending[id] = continuation
                    return true
                }
                guard accepted else {
                    // Cancelled before it was registered (onCancel found nothing to resolve), or closed.
                    continuation.resume(throwing: Task.isCancelled ? CancellationError() : PeerError.closed)
                    return
                }
                var message: [String: JSONValue] = ["jsonrpc": "2.0", "id": id.json, "method": .string(method)]
                if let params { message["params"] = params }
                writer.send(JSONValue.object(message).serialized)
            }
        } onCancel: {
            self.resolve(id, with: .failure(CancellationError()))
        }
    }

    /// A response from the client; false if nobody was waiting for `id`.
    @discardableResult
    func deliver(id: RequestID, result: JSONValue?, error: JSONValue?) -> Bool {
        if let error {
            let code = error["code"]?.intValue ?? ErrorCode.internalError.rawValue
            let message = error["message"]?.stringValue ?? "the client answered with an error"
            return resolve(id, with: .failure(RPCError(code: ErrorCode(rawValue: code), message: message, data: error["data"])))
        }
        return resolve(id, with: .success(result ?? .null))
    }

    /// Fails every request still waiting (the session is ending).
    func close() {
        let waiting = state.withLock { s -> [CheckedContinuation<JSONValue, any Error>] in
            s.closed = true
            defer { s.pending = [:] }
            return Array(s.pending.values)
        }
        for c in waiting { c.resume(throwing: PeerError.closed) }
    }

    @discardableResult
    private func resolve(_ id: RequestID, with result: Result<JSONValue, any Error>) -> Bool {
        guard let c = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return false }
        c.resume(with: result)
        return true
    }
}

/// Why a request to the client got no answer.
public enum PeerError: Error, Sendable, Equatable {
    case timedOut(method: String)
    case closed
}
