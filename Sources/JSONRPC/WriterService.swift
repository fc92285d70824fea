import ServiceLifecycle

/// The protocol stream's writer as a service: it writes as long as the server serves; once the group shuts down
/// (after the registry's drain, so every last reply is queued) it writes what is queued and ends the writer's
/// thread, within the server's limit (a client that reads nothing cannot hold it: see ``Server/endWriter()``).
struct WriterService: Service {
    let server: Server

    func run() async {
        do {
            try await GracefulShutdownWait.untilShutdown()
        } catch {
            return
        }
        await server.endWriter()
    }
}
