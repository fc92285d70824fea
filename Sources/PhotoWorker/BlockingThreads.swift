import JSONRPC
import ServiceLifecycle

/// The blocking pool as a service of the server's group: its threads start as work comes and end once the group
/// shuts down, after the last job.
struct BlockingThreads: Service {
    let pool: BlockingPool

    func run() async {
        try? await GracefulShutdownWait.untilShutdown()
        pool.stop()
    }
}
