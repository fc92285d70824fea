import Compute
import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport
import Logging

/// The photo worker: the JSON-RPC server with every PhotoWorker method registered.
public enum Worker {
    /// The worker's version (`--version`, `initialize`).
    public static let version = "0.1.0"

    /// The palette sizes `count` may ask for (`image.palette`, `photo.process`, `photos.process`, `demo --count`).
    public static let paletteCounts: ClosedRange<Int> = 3...10

    /// The server's built-ins the worker turns on (its OpenRPC document describes the same).
    static let builtins = ServerConfiguration.Builtins(jobs: true, statsMethod: "worker.stats")

    /// The application's methods (the server adds its built-ins); ``OpenRPCDocument/methods`` lists the same.
    static func methods(services: WorkerServices) -> MethodTable {
        let session = services.session
        var table = MethodTable()
        // The image methods refuse names their contract does not give them (ParamNames).
        func registerChecked<M: RPCMethod>(_ method: M) { table.register(method, checkParams: ParamNames.check(M.name)) }
        registerChecked(ImageInfoMethod(services: services))
        registerChecked(ImageConvertMethod(services: services))
        registerChecked(ImageThumbnailMethod(services: services))
        registerChecked(ImageScaleMethod(services: services))
        registerChecked(ImagePaletteMethod(services: services))
        registerChecked(ImageEffectMethod(services: services))
        registerChecked(ImageStickerMethod(services: services))
        registerChecked(ImageSubjectsMethod(services: services))
        registerChecked(ImageAnimatedStickerMethod(services: services))
        registerChecked(PhotoProcessMethod(services: services))
        registerChecked(PhotosProcessMethod(services: services))
        registerChecked(PackExportMethod(services: services))
        table.register(CacheStatsMethod(services: services))
        table.register(CacheClearMethod(services: services))
        // Scheduler probes for the tests and benchmarks, offered only with `--diagnostics`.
        if services.options.diagnostics {
            table.register(DiagnosticsSleepMethod())
            table.register(DiagnosticsSpinMethod(compute: services.compute))
            table.register(DiagnosticsFanoutMethod())
            table.register(DiagnosticsHoldMethod())
        }
        table.register(RPCDiscoverMethod())
        // MCP hosts drive the same methods as tools.
        table.register(ToolsListMethod())
        let tasks = MCPTaskStore()
        table.register(ToolsCallMethod(table: table, tasks: tasks))
        table.register(ServerDiscoverMethod(dialect: .worker, policy: session))
        table.register(TasksGetMethod(tasks: tasks))
        table.register(TasksResultMethod(tasks: tasks))
        table.register(TasksListMethod(tasks: tasks))
        table.register(TasksCancelMethod(tasks: tasks))
        table.register(TasksUpdateMethod(tasks: tasks))
        table.register(SubscriptionsListenMethod())
        table.registerNotification(InitializedNotification(policy: session))
        table.registerNotification(RootsListChangedNotification(policy: session))
        return table
    }

    /// Builds a server over the given descriptors.
    public static func makeServer(
        configuration: ServerConfiguration, options: WorkerOptions, input: Int32, output: Int32, logger: Logger
    ) -> Server {
        var configuration = configuration
        configuration.extraLimits["maxPixels"] = .int(options.maxPixels)
        configuration.extraLimits["maxFetchBytes"] = .int(options.maxFetchBytes)
        configuration.extraLimits["maxFrames"] = .int(options.maxFrames)
        configuration.extraLimits["maxDurationSeconds"] = .double(options.maxDuration)
        configuration.extraLimits["cacheBytes"] = .int(options.cacheBytes)
        configuration.name = "photoworker"
        configuration.version = Worker.version
        configuration.builtins = builtins
        configuration.naming.peerRequestIDPrefix = "photoworker-"
        configuration.naming.readerThread = "pw-reader"
        configuration.naming.writerThread = "pw-writer"
        configuration.dialects.append(MCPDialect.worker)
        configuration.extraLimits["fetchTimeoutSeconds"] = .double(options.fetchTimeout.inSeconds)
        let session = SessionPolicy(configuration: options.access, timers: configuration.timers)
        configuration.sessionDelegate = session
        let memory = WorkerMemoryBudget.make(options.maxMemory, limit: { options.memoryLimit ?? MemoryLimit.detect() },
                                             residentBytes: WorkerMemoryBudget.residentBytes)
        configuration.memoryBudget = memory
        if let memory, memory.bytes < WorkerMemoryBudget.smallestUsefulBytes {
            logger.warning(
                "the memory budget leaves \(MemorySize.describe(memory.bytes)) for jobs (\(memory.origin)); jobs that need more, such as a sticker (about 100 MiB), will be refused with -32007")
        }
        // The server's job limit is the one limit: slots, compute threads and batch widths.
        let services = WorkerServices(options: options, maxJobs: configuration.maxJobs, session: session, memory: memory)
        configuration.components += [ComputeThreads(pool: services.compute), BlockingThreads(pool: services.blocking)]
        // A compute job's slot becomes its lease on the compute threads, carried by its task and child tasks.
        let idle = IdleMemoryRelease(after: options.idleMemoryDelay, timers: configuration.timers,
                                     activations: services.activations)
        configuration.computeJobScope = { admission, body in
            try await idle.job {
                try await ComputeLease.$current.withValue(ComputeLease(order: admission), operation: body)
            }
        }
        return Server(configuration: configuration, methods: methods(services: services),
                      input: input, output: output, logger: logger)
    }
}

/// Options of the image side of the worker (the executable fills them from flags).
public struct WorkerOptions: Sendable {
    /// Largest image accepted, checked from the header before decoding.
    public var maxPixels = 100_000_000
    /// Most frames of a motion source (`--max-frames`), checked from its container and while decoding.
    public var maxFrames = 10_000
    /// Longest motion source in seconds (`--max-duration`).
    public var maxDuration: Double = 600
    /// The motion decoders' limits: these two and `maxPixels` per frame.
    public var motionLimits: MotionLimits { MotionLimits(maxFrames: maxFrames, maxDuration: maxDuration, maxPixels: maxPixels) }
    /// Byte budget of the decoded-image cache.
    public var cacheBytes = 512 << 20
    /// The memory budget (`--max-memory`): by default a share of the smaller of the machine's memory and the
    /// cgroup's limit.
    public var maxMemory = MemorySetting.standard
    /// The limit a share of `maxMemory` is taken of (tests give their own; read from the system when nil).
    public var memoryLimit: MemoryLimit?
    /// Largest body fetched for a URL source.
    public var maxFetchBytes = 100 << 20
    /// Timeout for URL fetches.
    public var fetchTimeout: Duration = .seconds(30)
    /// Allowed folders and the URL policy from the command line.
    public var access = SessionPolicy.Configuration()
    /// Offer the `diagnostics.*` methods (`--diagnostics`).
    public var diagnostics = false
    /// How long the worker keeps memory for the next job after the last one ends (``IdleMemoryRelease``).
    public var idleMemoryDelay: Duration = .seconds(5)

    public init() {}
}
