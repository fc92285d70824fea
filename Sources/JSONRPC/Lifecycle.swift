/// The server's lifecycle flags, shared by the read loop and the `shutdown`/`exit` methods.
@MainActor
final class Lifecycle {
    private(set) var isShuttingDown = false
    /// Why a request is refused once shutting down (`data.reason` of -32600 "server is shutting down").
    private(set) var refusal = "no new requests are accepted after shutdown"
    private var shutdownComplete = false
    private(set) var exitCode: Int32?
    /// The dialect the client initialised in, if not the native protocol (its conventions apply).
    private(set) var dialect: (any ProtocolDialect)?

    nonisolated init() {}

    func select(_ dialect: (any ProtocolDialect)?) { self.dialect = dialect }

    func beginShutdown() { isShuttingDown = true }

    /// Shutting down for `reason` (a signal): requests that still come are refused saying so.
    func beginShutdown(because reason: String) {
        if !isShuttingDown { refusal = "no new requests are accepted: \(reason)" }
        isShuttingDown = true
    }
    func completeShutdown() { shutdownComplete = true }

    /// `exit`: code 0 after a completed `shutdown`, 1 otherwise (as LSP does).
    @discardableResult
    func requestExit() -> Int32 {
        let code: Int32 = shutdownComplete ? 0 : 1
        exitCode = code
        isShuttingDown = true
        return code
    }
}
