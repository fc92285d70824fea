import ServiceLifecycle
import UnixSignals

/// SIGTERM and SIGINT, as a service: either terminates the server (every request in flight answered -32802, whose
/// reason names the signal, then the graceful shutdown of the group). The server's, not the group's
/// `gracefulShutdownSignals`: the group would not say which signal came. Ends with the group; the signals stay
/// ignored after (a second SIGTERM during the shutdown changes nothing). A signal that came before its handlers were
/// in place, which the executable's ``EarlySignals`` kept, is handled the same way once they are.
struct SignalService: Service {
    let server: Server

    func run() async {
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let server = server
        // Taken only now that the sequence's handlers are registered: a signal comes either early or through them.
        if let early = EarlySignals.take() { await Self.received(early, by: server) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await signal in signals { await Self.received(signal, by: server) }
            }
            // Ends the loop when the group shuts down (not the sequence's `cancelOnGracefulShutdown()`, which needs
            // the cooperative pool: see ``GracefulShutdownWait``).
            try? await GracefulShutdownWait.untilShutdown()
            group.cancelAll()
        }
    }
}

extension SignalService {
    @MainActor
    private static func received(_ signal: UnixSignal, by server: Server) {
        server.logger.info("received \(signal); cancelling everything")
        server.terminate(reason: "the worker received \(signal)", exitCode: 0, answeringLateRequests: true)
    }
}
