import Compute
import Imaging
import Inference
import JSONRPC

/// What image methods share: the options, the decoded-image cache and the loader.
public struct WorkerServices: Sendable {
    public let options: WorkerOptions
    public let cache: ImageCache
    public let loader: ImageLoader
    /// Threads for synchronous pixel work (one per job slot), so it never occupies the
    /// cooperative pool. The server starts and stops them (``ComputeThreads``). A handler's work reaches them as
    /// its job, ``computeJob(for:)``.
    public let compute: ComputePool
    /// Threads for blocking calls (file reads, URL transfers, loops over inline bytes), never the cooperative pool;
    /// started as they are needed, stopped with the server (``BlockingThreads``).
    public let blocking: BlockingPool
    /// The most blocking calls at once: URL transfers wait on the network, so more than the cores.
    static let blockingThreads = 8
    /// What each request may touch.
    public let session: SessionPolicy
    /// The network passes' activation blocks, kept from one pass to the next, no more than
    /// ``SubjectNetwork/activationBudget(threads:)`` at once, and handed back when the worker has been idle for a
    /// while (``releaseIdleMemory()``).
    public let activations: ActivationMemory
    /// The memory budget jobs are admitted against (nil: `--max-memory off`).
    public let memory: MemoryBudget?

    /// The job limit (the server's `maxJobs`): compute threads, and the width of batch methods.
    public var maxJobs: Int { compute.threadCount }

    /// - Parameter urlTestHooks: the fetcher's test resolver (tests only; the executable has no way to set it).
    /// - Parameter memory: the budget the cache and the idle activation blocks hold part of, if any.
    public init(options: WorkerOptions, maxJobs: Int, session: SessionPolicy = SessionPolicy(), memory: MemoryBudget? = nil,
                urlTestHooks: URLFetcher.TestHooks = URLFetcher.TestHooks()) {
        self.options = options
        self.session = session
        self.memory = memory
        cache = ImageCache(capacityBytes: options.cacheBytes, budget: memory)
        compute = ComputePool(threads: maxJobs)
        let activations = ActivationMemory(budget: { SubjectNetwork.activationBudget(threads: maxJobs) })
        self.activations = activations
        memory?.register(MemoryBudget.Holder(name: "activations", held: { activations.idleBytes }, trim: { _ in
            Task.detached(priority: .userInitiated) { activations.release() }
        }))
        blocking = BlockingPool(threads: Self.blockingThreads)
        loader = ImageLoader(options: options, cache: cache, blocking: blocking, urlTestHooks: urlTestHooks)
    }

    /// The compute threads as the job of the request `context` serves: its pixel work is scheduled by the job's place
    /// in the order of admission (``ComputeLease``); outside a compute job (`image.info`, an estimate) unleased.
    /// Handlers pass this value on to every stage that submits work; nothing finds it by itself.
    public func computeJob(for context: RequestContext) -> ComputeJob {
        ComputeJob(compute, lease: ComputeLease(serving: context))
    }

    /// The header facts a method's memory estimate starts from, with the session's access; `source` becomes what the
    /// work reads it by (a URL fetched once: ``ImageLoader/estimateSource(_:access:)``).
    func estimateFacts(of source: inout ImageSource) async throws -> MemoryEstimate.Source {
        let (facts, read) = try await loader.estimateSource(source, access: await access())
        source = read
        return facts
    }

    /// The file and URL access of a request starting now (waits while an MCP client's roots are
    /// being asked for).
    public func access() async -> FileAccess {
        FileAccess(policy: await session.policy())
    }
}

extension ComputeLease {
    /// The lease of the job `context` serves: its place in the order of admission; unleased outside a compute job.
    init(serving context: RequestContext) {
        self = context.admissionOrder.map(ComputeLease.init(order:)) ?? .unleased
    }
}
