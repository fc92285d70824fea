import Compute
import Imaging
import JSONRPC
import JSONRPCTransport

/// The compute threads as a server component: started before serving, stopped after the last job.
struct ComputeThreads: ServerComponent {
    let pool: ComputePool
    func start() { pool.start() }
    func stop() { pool.stop() }
}
