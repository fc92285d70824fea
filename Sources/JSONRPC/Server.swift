import Foundation
import JSONRPCTransport
import Logging
import ServiceLifecycle

/// A JSON-RPC 2.0 server over a pair of descriptors, one message per line or per Content-Length frame
/// (``FrameReader`` and ``MessageWriter`` of JSONRPCTransport).
///
/// The read loop is deliberately simple and sequential: it parses a message, validates it, and
/// either handles it inline (cancels, `exit`) or registers it in the ``RequestRegistry`` together
/// with a new `Task` before it looks at the next one; nothing in that path suspends. All replies
/// and notifications go through the single ``MessageWriter``.
///
/// - Important: Where code runs. The loop, the registry, the job runner, cheap methods, timers and
///   signal handling run on the main actor (the types say so: `Server`, ``RequestRegistry``,
///   `JobRunner`, ``Peer`` and ``ServerStats`` are `@MainActor`, with plain state and no locks),
///   one serial executor off the cooperative pool, so `ping` and
///   cancellation stay fast under load. Compute and waiting jobs run `@concurrent` on the
///   cooperative pool, and their synchronous pixel loops on the application's own compute threads
///   (Imaging's `ComputePool`), never on the pool: on Linux every wake-up from another thread
///   (a reply from the reader, a resumed continuation, a timer) goes through the cooperative pool,
///   so a pool filled with pixel loops would hold up `ping`, cancellation and shutdown for seconds.
///
/// - Important: What runs for how long. ``run()`` runs the server's parts as swift-service-lifecycle services in one
///   `ServiceGroup` (as Hummingbird 2 runs an application): the application's ``ServerConfiguration/components``,
///   the writer (``WriterService``), the signal and parent watches (``SignalService``, ``ParentWatchService``),
///   the registry's drain (``RegistryDrainService``) and the reader (``ReaderService``). The reader's end (`exit`,
///   end of input, ``terminate(reason:exitCode:)``) shuts the group down gracefully, in reverse order: the drain
///   answers or cancels what is in flight, the watches end, the writer writes what is queued and ends, and the
///   components (the compute threads) stop last.
@MainActor
public final class Server {
    public nonisolated let configuration: ServerConfiguration
    public nonisolated let stats = ServerStats()
    nonisolated let writer: MessageWriter
    let registry: RequestRegistry
    nonisolated let lifecycle = Lifecycle()
    /// The client: its `initialize` facts and the server's requests to it.
    public nonisolated let peer: Peer
    nonisolated let methods: MethodTable
    nonisolated let logger: Logger
    private nonisolated let input: Int32
    private(set) var terminating = false
    /// Why serving ends, once it does: what the services that shut down after the reader do, and the exit code.
    private(set) var ending: Ending?
    /// The reader ``read()`` started, which ``terminate(reason:exitCode:answeringLateRequests:)`` stops.
    private var reader: FrameReader?
    /// How the reader is to stop (``stopReader(_:)``): at once if it has started, else as soon as ``read()`` starts
    /// it.
    private var readerStop: ReaderStop?
    /// The bound on reading after a signal (``stopReadingOnceWoundDown()``), cancelled once the reader has ended.
    private var graceTimer: ScheduledTimer?

    /// Why serving ended.
    enum Ending: Equatable {
        /// `exit`: its code; everything in flight was cancelled.
        case exit(Int32)
        /// The input ended: in-flight work may finish within the drain timeout.
        case endOfInput
        /// ``terminate(reason:exitCode:)`` (a signal, the parent or the client gone): everything was cancelled.
        case terminated(Int32)

        var exitCode: Int32 {
            switch self {
            case .exit(let code), .terminated(let code): return code
            case .endOfInput: return 0
            }
        }
    }

    /// - Parameters:
    ///   - methods: the application's methods; the built-in ones are added.
    ///   - input: descriptor to read requests from.
    ///   - output: descriptor for the protocol stream (the duplicated real stdout).
    public nonisolated init(configuration: ServerConfiguration, methods: MethodTable, input: Int32, output: Int32, logger: Logger) {
        self.configuration = configuration
        self.input = input
        self.logger = logger
        writer = MessageWriter(fd: output, threadName: configuration.naming.writerThread)
        registry = RequestRegistry(writer: writer, stats: stats, maxJobs: configuration.maxJobs,
                                   maxQueue: configuration.maxQueue, timers: configuration.timers,
                                   jobScope: configuration.computeJobScope, memory: configuration.memoryBudget,
                                   logger: logger)
        peer = Peer(writer: writer, timers: configuration.timers, idPrefix: configuration.naming.peerRequestIDPrefix)

        var table = methods
        let registry = registry
        let stats = stats
        let lifecycle = lifecycle
        table.register(PingMethod())
        if configuration.builtins.jobs {
            table.register(JobsListMethod(registry: registry))
            table.register(JobsCancelMethod(registry: registry))
        }
        if let name = configuration.builtins.statsMethod {
            table.register(StatsMethod(registry: registry, stats: stats, delegate: configuration.sessionDelegate), as: name)
        }
        table.register(ShutdownMethod(lifecycle: lifecycle, registry: registry))
        let snapshot = table
        table.register(
            InitializeMethod(configuration: configuration, lifecycle: lifecycle, peer: peer) {
                (snapshot.names + [InitializeMethod.name]).sorted().map { name in
                    let h = snapshot[name]
                    return InitializeMethod.MethodInfo(
                        name: name, cost: h?.cost ?? .immediate,
                        summary: h?.summary ?? InitializeMethod.summary)
                }
            })
        self.methods = table
    }

    /// The client closed our output: nobody hears us any more.
    private func peerClosedOutput() async {
        logger.info("the client closed the protocol stream; cancelling everything")
        terminate(reason: "the client closed its input", exitCode: 0)
    }

    /// Serves until `exit`, end of input (after draining), a signal or the peer going away. When it returns, the
    /// reader's and writer's threads have ended (the writer's within its time limit), so the caller may close the
    /// descriptors.
    /// - Returns: the process exit code; the caller decides how the process ends.
    public func run() async -> Int32 {
        writer.whenClosed { [weak self] in
            Task { @MainActor in await self?.peerClosedOutput() }
        }
        if let framing = configuration.framing { writer.setFraming(framing) }
        // Started in this order and shut down in reverse, each once the one after it has ended: the reader ends
        // first (its end starts the shutdown), the components last.
        var services = configuration.components.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
        services.append(.init(service: WriterService(server: self)))
        if configuration.handleSignals { services.append(.init(service: SignalService(server: self))) }
        if configuration.watchParent {
            services.append(.init(service: ParentWatchService(server: self, timers: configuration.timers)))
        }
        services.append(.init(service: RegistryDrainService(server: self)))
        services.append(.init(service: ReaderService(server: self), successTerminationBehavior: .gracefullyShutdownGroup))
        // Signals are the signal service's, not the group's: the replies it cancels name the signal.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: logger))
        do {
            // On the main queue, as the read loop and the registry are: the cooperative pool never holds it up.
            try await withTaskExecutorPreference(MainQueueExecutor.shared) { try await group.run() }
        } catch {
            logger.error("the server's services failed: \(error)")
        }
        return ending?.exitCode ?? 0
    }

    /// The read loop (``ReaderService``): returns on `exit`, at the end of the input, or once
    /// ``terminate(reason:exitCode:)`` stopped the reader; the reader's thread has ended by then.
    func read() async {
        let reader = FrameReader(fd: input, maxMessageBytes: configuration.maxMessageBytes, framing: configuration.framing,
                                 onFraming: { [writer] in writer.setFraming($0) },
                                 threadName: configuration.naming.readerThread)
        self.reader = reader
        if let readerStop { stop(reader, readerStop) }
        loop: for await batch in reader.batches {
            switch batch {
            case .events(let events):
                for event in events {
                    handle(event)
                    if lifecycle.exitCode != nil { break }
                }
                reader.acknowledge()
                if let code = lifecycle.exitCode {
                    if ending == nil { ending = .exit(code) }
                    reader.stop()
                    break loop
                }
            case .endOfInput:
                break loop
            }
        }
        await reader.waitUntilEnded()  // stopped, or at the end of its input: nothing reads `input` from here on
        graceTimer?.cancel()
        guard ending == nil else { return }
        // End of input: no more requests can come; the drain lets in-flight work finish.
        logger.debug("end of input; draining in-flight jobs")
        ending = .endOfInput
        lifecycle.beginShutdown()
        peer.close()  // the client can no longer answer
    }

    /// The registry's part of shutting down (``RegistryDrainService``): after the end of the input, in-flight work
    /// gets the drain timeout, then the rest is cancelled; in every case tasks get a moment to clean up.
    func drain() async {
        if ending == .endOfInput && !terminating {
            if await !registry.waitUntilIdle(timeout: configuration.drainTimeout) {
                registry.terminateAll(reason: "drain timeout after end of input")
            }
        }
        await registry.waitForTasks(upTo: .seconds(5))
    }

    /// The writer's part (``WriterService``): writes what is queued and ends the writer's thread, within 5 s when
    /// the server was terminated and 10 s otherwise.
    func endWriter() async {
        await endWriter(within: terminating ? .seconds(5) : .seconds(10))
    }

    // MARK: - Dispatch

    private func handle(_ event: FrameEvent) {
        stats.received += 1
        switch event {
        case .overlong(let count):
            writer.send(OutgoingMessage.failure(id: nil, error: RPCError(
                code: .parseError, message: "parse error",
                data: ["reason": .string("message exceeds the limit of \(configuration.maxMessageBytes) bytes and was discarded"),
                       "limit": .int(configuration.maxMessageBytes), "length": .int(count)])))
        case .malformed(let reason):
            writer.send(OutgoingMessage.failure(id: nil, error: RPCError(
                code: .parseError, message: "parse error",
                data: ["reason": .string(reason), "framing": .string(MessageFraming.contentLength.rawValue)])))
        case .message(let bytes):
            let value: JSONValue
            do {
                value = try JSONParser.parse(bytes)
            } catch {
                writer.send(OutgoingMessage.failure(id: nil, error: .parse(error)))
                return
            }
            if case .array(let members) = value {
                guard !members.isEmpty else {
                    writer.send(OutgoingMessage.failure(id: nil, error: .invalidRequest("empty batch")))
                    return
                }
                let collector = BatchCollector(writer: writer)
                var expected = 0
                for member in members where dispatch(IncomingMessage(member), sink: .batch(collector)) {
                    expected += 1
                }
                collector.seal(expecting: expected)
            } else {
                dispatch(IncomingMessage(value), sink: .direct(writer))
            }
        }
    }

    /// Dispatches one message. Returns whether a response will be delivered to `sink`.
    @discardableResult
    private func dispatch(_ message: IncomingMessage, sink: ReplySink) -> Bool {
        switch message {
        case .invalid(let id, let error):
            sink.deliver(OutgoingMessage.failure(id: id, error: error))
            return true
        case .notification(let method, let params):
            notification(method, params: params)
            return false
        case .request(let id, let method, let params):
            request(id: id, method: method, params: params, sink: sink)
            return true
        case .response(let id, let result, let error):
            if !peer.deliver(id: id, result: result, error: error) {
                logger.debug("ignoring a response nobody waits for", metadata: ["id": "\(id)"])
            }
            return false
        }
    }

    private func request(id: RequestID, method: String, params: JSONValue?, sink: ReplySink) {
        if method == "exit" {
            sink.deliver(OutgoingMessage.success(id: id, result: .emptyObject))
            exitRequested()
            return
        }
        if let key = cancelKey(method) {
            // Sent as a request, a cancel notification's method is answered like any request: not a dialect's cancel.
            let found = cancel(params, key: key, by: nil)
            sink.deliver(OutgoingMessage.success(id: id, result: RawJSON(["cancelled": .bool(found)])))
            return
        }
        if lifecycle.isShuttingDown && method != ShutdownMethod.name {
            sink.deliver(OutgoingMessage.failure(id: id, error: RPCError(
                code: .invalidRequest, message: "server is shutting down",
                data: ["reason": .string(lifecycle.refusal), "method": .string(method)])))
            return
        }
        if lifecycle.dialect == nil { openSession(method: method, params: params) }
        guard let handler = methods[method] else {
            sink.deliver(OutgoingMessage.failure(id: id, error: .methodNotFound(method)))
            return
        }
        if method == ShutdownMethod.name {
            // Refuse what follows at once, not when the shutdown task gets to run.
            lifecycle.beginShutdown()
        }
        let reporter = configuration.dialects.lazy.compactMap { $0.progressReporter(for: params) }.first
        let context = RequestContext(id: id, method: method, registry: registry, reporter: reporter, peer: peer,
                                     memoryBudget: configuration.memoryBudget)
        let admission = registry.admit(Job(handler: handler, params: params, context: context), id: id, sink: sink,
                                       isLifecycle: method == ShutdownMethod.name)
        switch admission {
        case .admitted:
            break
        case .duplicateID:
            sink.deliver(OutgoingMessage.failure(id: id, error: .invalidRequest("id \(id) is already in flight")))
        case .overloaded:
            sink.deliver(OutgoingMessage.failure(id: id, error: RPCError(
                code: .overloaded, message: "overloaded",
                data: ["reason": "the job queue is full", "maxQueue": .int(configuration.maxQueue)])))
        }
    }

    /// A request in a dialect's stateless revision opens the session as `initialize` would (see
    /// ``ProtocolDialect/session(openedBy:params:)``), before it is admitted, so a cancel that follows is already
    /// the dialect's.
    private func openSession(method: String, params: JSONValue?) {
        for dialect in configuration.dialects {
            guard let session = dialect.session(openedBy: method, params: params) else { continue }
            lifecycle.select(dialect)
            peer.setSession(session)
            configuration.sessionDelegate?.clientInitialized(session)
            return
        }
    }

    private func notification(_ method: String, params: JSONValue?) {
        if let key = cancelKey(method) {
            cancel(params, key: key, by: method)
            return
        }
        switch method {
        case "exit":
            exitRequested()
        default:
            guard let handler = methods.notifications[method] ?? methods[method], !lifecycle.isShuttingDown else {
                logger.debug("ignoring notification", metadata: ["method": "\(method)"])
                return
            }
            // A notification runs like a request but nobody hears about the outcome.
            registry.start(Job(handler: handler, params: params,
                               context: RequestContext(id: nil, method: method, registry: nil, peer: peer)))
        }
    }

    /// The params key of the request id if `method` cancels: `$/cancelRequest`, or a dialect's cancel
    /// notification (accepted in any session).
    private func cancelKey(_ method: String) -> String? {
        if method == "$/cancelRequest" { return "id" }
        return configuration.dialects.first { $0.cancelNotification.method == method }?.cancelNotification.idKey
    }

    @discardableResult
    private func cancel(_ params: JSONValue?, key: String, by method: String?) -> Bool {
        guard let raw = params?[key], let id = RequestID(json: raw) else {
            logger.debug("cancel without a readable id", metadata: ["key": "\(key)"])
            return false
        }
        return registry.cancel(id, by: method, sessionDialect: lifecycle.dialect)
    }

    // MARK: - Ending

    private func exitRequested() {
        let code = lifecycle.requestExit()
        logger.debug("exit requested", metadata: ["code": "\(code)"])
        peer.close()
        registry.terminateAll(reason: "exit requested")
    }

    /// Writes what is queued and ends the writer's thread, waiting at most `limit` on the server's timers: a client
    /// that reads nothing will not take the rest, and the cancelled stop then ends the thread at once.
    private func endWriter(within limit: Duration) async {
        let stopping = Task { [writer] in await writer.stop() }
        let deadline = configuration.timers.after(limit) { stopping.cancel() }
        await stopping.value
        deadline.cancel()
    }

    /// Cancels everything with -32802 and stops the reader, so the services shut down (the drain gives tasks a
    /// moment to clean up, the writer writes what is queued), and ``run()`` returns `exitCode` (unless `exit` came
    /// first, whose code stands).
    /// - Parameter answeringLateRequests: a signal's: the reader goes on while the worker winds down, and every
    ///   request it still reads is refused (-32600 "server is shutting down", `data.reason` naming `reason`) instead
    ///   of left unread (see ``stopReadingOnceWoundDown()``).
    func terminate(reason: String, exitCode: Int32, answeringLateRequests: Bool = false) {
        guard !terminating else { return }
        terminating = true
        lifecycle.beginShutdown(because: reason)
        peer.close()
        registry.terminateAll(reason: reason)
        if ending == nil { ending = .terminated(exitCode) }
        if answeringLateRequests {
            stopReadingOnceWoundDown()
        } else {
            stopReader()
        }
    }

    private enum ReaderStop {
        /// ``FrameReader/stop()``.
        case now
        /// ``FrameReader/stopAfterAvailableInput()``.
        case afterAvailableInput
    }

    /// Stops the reader `how`; a stop `now` wins over one after the available input.
    private func stopReader(_ how: ReaderStop = .now) {
        if readerStop != .now { readerStop = how }
        if let reader { stop(reader, how) }
    }

    private func stop(_ reader: FrameReader, _ how: ReaderStop) {
        switch how {
        case .now: reader.stop()
        case .afterAvailableInput: reader.stopAfterAvailableInput()
        }
    }

    /// How long after a signal the worker may go on reading: the time its cancelled jobs get to clean up.
    static let signalGrace: Duration = .seconds(5)

    /// Stops reading once the cancelled jobs have ended and what was queued until then is written, after reading
    /// what the client wrote up to then; at the latest ``signalGrace`` after the signal, at once. A client that
    /// sends a request as the signal comes gets its refusal while the worker winds down, and a client that never
    /// closes its input (or never stops writing) cannot hold it. (End of input or `exit` still end the reading
    /// sooner.) A request written after the reading stopped is not read: the process is exiting, and the client sees
    /// its output close.
    private func stopReadingOnceWoundDown() {
        let windingDown = Task { [registry, writer] in
            await registry.waitForTasks(upTo: Self.signalGrace)
            await writer.flush()
        }
        graceTimer = configuration.timers.after(Self.signalGrace) { [weak self] in
            windingDown.cancel()
            Task { @MainActor in self?.stopReader() }
        }
        Task {
            await windingDown.value
            stopReader(.afterAvailableInput)
        }
    }
}
