import ServiceLifecycle
import UnixSignals

/// SIGTERM and SIGINT, as a service: either terminates the server (every request in flight answered -32802, whose
/// reason names the signal, then the graceful shutdown of the group). The server's, not the group's
/// `gracefulShutdownSignals`: the group would not say which signal came. Ends with the group; the signals stay
/// ignored after (a second SIGTERM during the shutdown changes nothing).
struct SignalService: Service {
    let server: Server

    func run() async {
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let server = server
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await signal in signals {
                    server.logger.info("received \(signal); cancelling everything")
                    await server.terminate(reason: "the worker received \(signal)", exitCode: 0)
                }
            }
            // Ends the loop when the group shuts down (not the sequence's `cancelOnGracefulShutdown()`, which needs
            // the cooperative pool: see ``GracefulShutdownWait``).
            try? await GracefulShutdownWait.untilShutdown()
            group.cancelAll()
        }
    }
}
