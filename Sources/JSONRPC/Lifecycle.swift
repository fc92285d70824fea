import Synchronization

/// The server's lifecycle flags, shared by the read loop and the `shutdown`/`exit` methods.
final class Lifecycle: Sendable {
    private struct State {
        var shuttingDown = false
        var shutdownComplete = false
        var exitCode: Int32?
        var dialect: (any ProtocolDialect)?
    }

    private let state = Mutex(State())

    var isShuttingDown: Bool { state.withLock { $0.shuttingDown } }
    var exitCode: Int32? { state.withLock { $0.exitCode } }

    /// The dialect the client initialised in, if not the native protocol (its conventions apply).
    var dialect: (any ProtocolDialect)? {
        get { state.withLock { $0.dialect } }
        set { state.withLock { $0.dialect = newValue } }
    }

    func beginShutdown() { state.withLock { $0.shuttingDown = true } }
    func completeShutdown() { state.withLock { $0.shutdownComplete = true } }

    /// `exit`: code 0 after a completed `shutdown`, 1 otherwise (as LSP does).
    @discardableResult
    func requestExit() -> Int32 {
        state.withLock { s in
            let code: Int32 = s.shutdownComplete ? 0 : 1
            s.exitCode = code
            s.shuttingDown = true
            return code
        }
    }
}
