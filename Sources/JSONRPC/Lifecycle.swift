import Synchronization

/// The server's lifecycle flags, shared by the read loop and the `shutdown`/`exit` methods.
final class Lifecycle: Sendable {
    private struct State {
        var shuttingDown = false
        var shutdownComplete = false
        var exitCode: Int32?
        var speaksMCP = false
    }

    private let state = Mutex(State())

    var isShuttingDown: Bool { state.withLock { $0.shuttingDown } }
    var exitCode: Int32? { state.withLock { $0.exitCode } }

    /// The client initialised as an MCP host (MCP cancellation and result conventions apply).
    var speaksMCP: Bool {
        get { state.withLock { $0.speaksMCP } }
        set { state.withLock { $0.speaksMCP = newValue } }
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
