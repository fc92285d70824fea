import ServiceLifecycle

/// The server's read loop as a service: it reads and dispatches until `exit`, the end of the input or
/// ``Server/terminate(reason:exitCode:)``, and its end shuts the server's service group down (its
/// `successTerminationBehavior` says so). Shut down by the group instead (another service failed), it terminates the
/// server: everything in flight is cancelled.
struct ReaderService: Service {
    let server: Server

    func run() async {
        await withGracefulShutdownHandler {
            await server.read()
        } onGracefulShutdown: {
            Task { @MainActor in server.terminate(reason: "the server is shutting down", exitCode: 0) }
        }
    }
}
