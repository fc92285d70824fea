import Foundation
import JSONRPCTransport
import ServiceLifecycle

/// Limits and identity of a server; the executable fills it from its flags.
///
/// The defaults here are the defaults: the executable's flags read them (`ServerConfiguration().maxQueue`), so each
/// limit is stated once.
public struct ServerConfiguration: Sendable {
    /// The server's name and version in `initialize` (the application sets them).
    public var name = "jsonrpc-server"
    public var version = "0.0.0"
    /// Protocol revision of this worker's wire contract (protocol/README.md).
    public var protocolVersion = "1.0"
    /// Longest accepted message (a line, or a Content-Length body); longer ones are discarded and
    /// answered -32700.
    public var maxMessageBytes = 64 << 20
    /// The input's framing, or nil to detect it from the first bytes (and answer in kind).
    public var framing: MessageFraming?
    /// Compute jobs running at once: one per core unless the application says otherwise.
    public var maxJobs = ProcessInfo.processInfo.activeProcessorCount
    /// The memory compute jobs are admitted against by their estimates (nil: slots alone decide).
    public var memoryBudget: MemoryBudget?
    /// Compute jobs waiting for a slot before new ones are refused with -32000.
    public var maxQueue = 10_000
    /// How long in-flight work may run after stdin closes before it is cancelled with -32802.
    public var drainTimeout: Duration = .seconds(30)
    /// Handle SIGTERM/SIGINT (``SignalService``; the executable does; tests of the library may not).
    public var handleSignals = true
    /// Exit when the parent process goes away even if stdin stays open (``ParentWatchService``).
    public var watchParent = true
    /// Every timeout of the server (drain, peer requests, the parent watch): the main queue, or a clock
    /// the test advances.
    public var timers: any TimerScheduler = MainQueueTimers()
    /// Extra facts for `initialize`'s `limits` (the application's own limits).
    public var extraLimits: [String: JSONValue] = [:]
    /// Protocols spoken besides the native one, selected by `initialize` (the worker's MCP adapter).
    public var dialects: [any ProtocolDialect] = []
    /// The application's services (the worker's compute and blocking threads), run in the server's service group
    /// before its own: they run while it serves and are shut down gracefully after its last job and its writer,
    /// in reverse order.
    public var components: [any Service] = []
    /// Told when the client initialises; supplies the `policy` facts of `initialize` and of the stats method.
    public var sessionDelegate: (any SessionDelegate)?
    /// Runs around every compute job's handler, once the job holds its slot: the application's scope for it (the
    /// worker counts its running jobs here). The job's place in the order of admission is in its context
    /// (``RequestContext/admissionOrder``), passed to the handler.
    public var computeJobScope: ComputeJobScope?
    /// The optional built-in methods the application offers (ping, initialize, shutdown, exit and the
    /// cancel notifications are always there).
    public var builtins = Builtins()
    /// Names of the threads and ids the server makes, so they say whose they are.
    public var naming = Naming()

    public init() {}

    /// Optional built-in methods.
    public struct Builtins: Sendable {
        /// `jobs.list` and `jobs.cancel`.
        public var jobs = false
        /// The name of the counters method (the worker's `worker.stats`); nil for none.
        public var statsMethod: String?

        public init(jobs: Bool = false, statsMethod: String? = nil) {
            self.jobs = jobs
            self.statsMethod = statsMethod
        }
    }

    /// What the server calls the things it makes.
    public struct Naming: Sendable {
        /// Prefix of the ids of requests the server sends the client (`photoworker-1`).
        public var peerRequestIDPrefix = "server-"
        /// Names of the reader and writer threads.
        public var readerThread = "jsonrpc-reader"
        public var writerThread = "jsonrpc-writer"

        public init() {}
    }
}

/// Wraps a compute job's handler (`body`) in the application's scope; see ``ServerConfiguration/computeJobScope``.
public typealias ComputeJobScope =
    @Sendable (_ body: () async throws -> RawJSON) async throws -> RawJSON
