import JSONRPC

/// The blocking pool as a server component: its threads start as work comes and end when the server stops.
struct BlockingThreads: ServerComponent {
    let pool: BlockingPool
    func start() {}
    func stop() { pool.stop() }
}
