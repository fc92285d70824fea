import JSONRPC
import JSONRPCTransport
import PhotoWorker

/// The worker inside this process, reached with the real protocol (``InProcessConnection``), so `call` and
/// `demo` exercise exactly what clients get.
enum InProcessWorker {
    static func start(flags: WorkerFlags) throws -> InProcessConnection {
        var configuration = flags.serverConfiguration
        configuration.handleSignals = false
        // watchParent stays on: a script killed while `call` or `demo` runs does not leave them working for nobody
        // (the job is answered -32802 and the command exits 1).
        let options = flags.workerOptions, logger = flags.makeLogger()
        for problem in ResourceCheck.problems() { logger.error("\(problem)") }
        return try InProcessConnection { input, output in
            Worker.makeServer(configuration: configuration, options: options, input: input, output: output, logger: logger)
        }
    }
}
