import ServiceLifecycle

/// The request registry's part of shutting down, as a service: once the group shuts down (after the reader),
/// in-flight work gets the drain timeout after the end of the input (or was already cancelled by `exit` or
/// ``Server/terminate(reason:exitCode:)``), and the tasks get a moment to clean up before the writer ends.
struct RegistryDrainService: Service {
    let server: Server

    func run() async {
        do {
            try await GracefulShutdownWait.untilShutdown()
        } catch {
            return  // the group was cancelled: nothing is left to wait for
        }
        await server.drain()
    }
}
