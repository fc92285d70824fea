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

    /// What a method is made from when the table is built.
    struct MethodMaking {
        let services: WorkerServices
        let tasks: MCPTaskStore
    }

    /// One method of the worker's list: its type (whose contract the OpenRPC document states) and how it is made
    /// and registered.
    struct ListedMethod: Sendable {
        let type: any RPCMethod.Type
        /// Offered only with `--diagnostics`.
        let diagnostic: Bool
        let register: @Sendable (inout MethodTable, MethodMaking) -> Void

        /// A method that refuses parameter names its contract does not give it (``ParamNames``): the image methods.
        static func checked<M: RPCMethod>(_ make: @escaping @Sendable (WorkerServices) -> M) -> ListedMethod {
            ListedMethod(type: M.self, diagnostic: false) { $0.register(make($1.services), checkParams: ParamNames.check(M.name)) }
        }

        /// A method that takes extra members, as LSP and MCP clients send them. `make` sees the table as it is when
        /// the method is registered (tools/call calls the methods listed before it).
        static func open<M: RPCMethod>(diagnostic: Bool = false,
                                       _ make: @escaping @Sendable (MethodTable, MethodMaking) -> M) -> ListedMethod {
            ListedMethod(type: M.self, diagnostic: diagnostic) { table, making in table.register(make(table, making)) }
        }

        /// A notification the client sends (never answered).
        static func notification<M: RPCMethod>(_ make: @escaping @Sendable (WorkerServices) -> M) -> ListedMethod {
            ListedMethod(type: M.self, diagnostic: false) { $0.registerNotification(make($1.services)) }
        }
    }

    /// Every method and notification the worker registers besides the server's built-ins, once, in the order the
    /// OpenRPC document lists them (``OpenRPCDocument/methods`` is this list's types) and they are registered.
    static let listedMethods: [ListedMethod] = [
        .open { _, _ in RPCDiscoverMethod() },
        // Scheduler probes for the tests and benchmarks, offered only with `--diagnostics`.
        .open(diagnostic: true) { _, _ in DiagnosticsSleepMethod() },
        .open(diagnostic: true) { DiagnosticsSpinMethod(compute: $1.services.compute) },
        .open(diagnostic: true) { _, _ in DiagnosticsFanoutMethod() },
        .open(diagnostic: true) { _, _ in DiagnosticsHoldMethod() },
        .checked { ImageInfoMethod(services: $0) },
        .checked { ImageConvertMethod(services: $0) },
        .checked { ImageThumbnailMethod(services: $0) },
        .checked { ImageScaleMethod(services: $0) },
        .checked { ImagePaletteMethod(services: $0) },
        .checked { ImageEffectMethod(services: $0) },
        .checked { ImageStickerMethod(services: $0) },
        .checked { ImageSubjectsMethod(services: $0) },
        .checked { ImageAnimatedStickerMethod(services: $0) },
        .checked { PhotoProcessMethod(services: $0) },
        .checked { PhotosProcessMethod(services: $0) },
        .checked { PackExportMethod(services: $0) },
        .open { CacheStatsMethod(services: $1.services) },
        .open { CacheClearMethod(services: $1.services) },
        .notification { InitializedNotification(policy: $0.session) },
        .notification { RootsListChangedNotification(policy: $0.session) },
        // MCP hosts drive the same methods as tools.
        .open { _, _ in ToolsListMethod() },
        .open { ToolsCallMethod(table: $0, tasks: $1.tasks) },
        .open { ServerDiscoverMethod(dialect: .worker, policy: $1.services.session) },
        .open { TasksGetMethod(tasks: $1.tasks) },
        .open { TasksResultMethod(tasks: $1.tasks) },
        .open { TasksListMethod(tasks: $1.tasks) },
        .open { TasksCancelMethod(tasks: $1.tasks) },
        .open { TasksUpdateMethod(tasks: $1.tasks) },
        .open { _, _ in SubscriptionsListenMethod() },
    ]

    /// The application's methods (the server adds its built-ins): ``listedMethods``, the diagnostics only with
    /// `--diagnostics`.
    static func methods(services: WorkerServices) -> MethodTable {
        let making = MethodMaking(services: services, tasks: MCPTaskStore())
        var table = MethodTable()
        for method in listedMethods where !method.diagnostic || services.options.diagnostics {
            method.register(&table, making)
        }
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
        let idle = IdleMemoryRelease(after: options.idleMemoryDelay, timers: configuration.timers,
                                     activations: services.activations)
        configuration.computeJobScope = { body in try await idle.job(body) }
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
