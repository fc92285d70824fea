/// The server's lifecycle flags, shared by the read loop and the `shutdown`/`exit` methods.
@MainActor
final class Lifecycle {
    private(set) var isShuttingDown = false
    private var shutdownComplete = false
    private(set) var exitCode: Int32?
    /// The dialect the client initialised in, if not the native protocol (its conventions apply).
    private(set) var dialect: (any ProtocolDialect)?

    nonisolated init() {}

    func select(_ dialect: (any ProtocolDialect)?) { self.dialect = dialect }

    func beginShutdown() { isShuttingDown = true }
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
