/// Something of the application's that the server starts before it serves and stops once its last
/// job has ended (the worker's compute threads, say), so what runs for how long is the server's call.
public protocol ServerComponent: Sendable {
    func start()
    func stop()
}
