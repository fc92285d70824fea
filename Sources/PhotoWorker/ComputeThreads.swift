import Compute
import JSONRPC
import ServiceLifecycle

/// The compute threads as a service of the server's group: started when the group starts (work submitted a moment
/// before waits for them), stopped once the group shuts down, after the last job and the writer.
struct ComputeThreads: Service {
    let pool: ComputePool

    func run() async {
        pool.start()
        try? await GracefulShutdownWait.untilShutdown()  // or the group's cancellation: the threads end either way
        pool.stop()
    }
}
