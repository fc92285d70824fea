import JSONRPCTransport
import Waiting

/// The client as the server sees it: what it said in `initialize`, and requests the server sends
/// to it (MCP's `roots/list`, say), whose responses the read loop routes back here. On the main
/// actor with the rest of the protocol side's state.
@MainActor
public final class Peer {
    /// What the client said in `initialize` (defaults until it has).
    public private(set) var session = ClientSession()
    private var nextID = 1
    /// The requests waiting for the client's answer: their tickets by id, in one ``WaiterQueue``.
    private var pending: [RequestID: ContinuationQueue<JSONValue>.Ticket] = [:]
    private var waiters = ContinuationQueue<JSONValue>()
    private var closed = false
    private let writer: MessageWriter
    private let timers: any TimerScheduler
    /// The ids of the server's requests: the prefix and a counter (`photoworker-1`).
    private let idPrefix: String

    nonisolated init(writer: MessageWriter, timers: any TimerScheduler, idPrefix: String) {
        self.writer = writer
        self.timers = timers
        self.idPrefix = idPrefix
    }

    func setSession(_ session: ClientSession) {
        self.session = session
    }

    /// Sends a request to the client and waits for its response.
    /// - Throws: the client's error as an ``RPCError``, ``PeerError/timedOut`` after `timeout`,
    ///   ``PeerError/closed`` when the session ends first, or `CancellationError`.
    public func request(_ method: String, params: JSONValue? = nil, timeout: Duration = .seconds(10)) async throws -> JSONValue {
        let id = RequestID.string("\(idPrefix)\(nextID)")
        nextID += 1
        let ticket = waiters.enqueue()
        pending[id] = ticket
        // The timeout is cancelled when the request ends, however it ends: an answered request leaves no timer.
        var timeoutTimer: ScheduledTimer?
        defer { timeoutTimer?.cancel() }
        if closed || Task.isCancelled {
            // Closed, or cancelled before it was sent: nothing goes to the client.
            resolve(id, with: .failure(closed ? PeerError.closed : CancellationError()))
        } else {
            var message: [String: JSONValue] = ["jsonrpc": "2.0", "id": id.json, "method": .string(method)]
            if let params { message["params"] = params }
            writer.send(JSONValue.object(message).serialized)
            timeoutTimer = timers.after(timeout) {
                Task { @MainActor [weak self] in self?.resolve(id, with: .failure(PeerError.timedOut(method: method))) }
            }
        }
        return try await Parking.wait({ waiters.park(ticket, $0).perform() }, onCancel: {
            Task { @MainActor [weak self] in self?.resolve(id, with: .failure(CancellationError())) }
        })
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
        closed = true
        pending = [:]
        waiters.resolveAll(with: .failure(PeerError.closed)).perform()
    }

    @discardableResult
    private func resolve(_ id: RequestID, with result: Result<JSONValue, any Error>) -> Bool {
        guard let ticket = pending.removeValue(forKey: id) else { return false }
        waiters.resolve(ticket, with: result).perform()
        return true
    }
}

/// Why a request to the client got no answer.
public enum PeerError: Error, Sendable, Equatable {
    case timedOut(method: String)
    case closed
}
