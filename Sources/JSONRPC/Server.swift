import Foundation
import JSONRPCTransport
import Logging

import Glibc

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
    private var terminating = false
    /// Set by ``terminate(reason:exitCode:)``: the code ``run()`` returns.
    private var endingCode: Int32?
    /// The reader ``run()`` started, which ``terminate(reason:exitCode:)`` stops.
    private var reader: FrameReader?

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
        await terminate(reason: "the client closed its input", exitCode: 0)
    }

    /// Serves until `exit`, end of input (after draining), a signal or the peer going away. When it returns, the
    /// reader's and writer's threads have ended (the writer's within its time limit), so the caller may close the
    /// descriptors.
    /// - Returns: the process exit code; the caller decides how the process ends.
    public func run() async -> Int32 {
        for component in configuration.components { component.start() }
        defer { for component in configuration.components.reversed() { component.stop() } }
        if configuration.handleSignals { installSignalHandlers() }
        if configuration.watchParent { watchParent() }
        writer.whenClosed { [weak self] in
            Task { @MainActor in await self?.peerClosedOutput() }
        }
        if let framing = configuration.framing { writer.setFraming(framing) }
        let reader = FrameReader(fd: input, maxMessageBytes: configuration.maxMessageBytes, framing: configuration.framing,
                                 onFraming: { [writer] in writer.setFraming($0) },
                                 threadName: configuration.naming.readerThread)
        self.reader = reader
        if endingCode != nil { reader.stop() }
        loop: for await batch in reader.batches {
            switch batch {
            case .events(let events):
                for event in events {
                    handle(event)
                    if lifecycle.exitCode != nil { break }
                }
                reader.acknowledge()
                if let code = lifecycle.exitCode {
                    reader.stop()
                    await finishExit()
                    await reader.waitUntilEnded()
                    return code
                }
            case .endOfInput:
                break loop
            }
        }
        // Stopped by terminate(), which has already answered and waited for everything.
        await reader.waitUntilEnded()  // stopped, or at the end of its input: nothing reads `input` from here on
        if let code = endingCode { return code }
        // End of input: no more requests can come; let in-flight work finish.
        logger.debug("end of input; draining in-flight jobs")
        lifecycle.beginShutdown()
        peer.close()  // the client can no longer answer
        if await !registry.waitUntilIdle(timeout: configuration.drainTimeout) {
            registry.terminateAll(reason: "drain timeout after end of input")
        }
        await registry.waitForTasks(upTo: .seconds(5))
        await endWriter(within: .seconds(10))
        return 0
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
                data: ["reason": "no new requests are accepted after shutdown", "method": .string(method)])))
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

    private func finishExit() async {
        await registry.waitForTasks(upTo: .seconds(5))
        await endWriter(within: .seconds(10))
    }

    /// Writes what is queued and ends the writer's thread, waiting at most `limit` on the server's timers (a client
    /// that reads nothing can hold a `write(2)` forever; its thread then ends when the write fails).
    private func endWriter(within limit: Duration) async {
        let ending = Task { [writer] in await writer.stop() }
        configuration.timers.after(limit) { ending.cancel() }
        await ending.value
    }

    /// Cancels everything with -32802, waits briefly for tasks to clean up, writes what is queued, ends the
    /// writer and the reader, and makes ``run()`` return `exitCode`.
    func terminate(reason: String, exitCode: Int32) async {
        guard !terminating else { return }
        terminating = true
        lifecycle.beginShutdown()
        peer.close()
        registry.terminateAll(reason: reason)
        await registry.waitForTasks(upTo: .seconds(5))
        await endWriter(within: .seconds(5))
        endingCode = exitCode
        reader?.stop()
    }

    private nonisolated func installSignalHandlers() {
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .main)
            let name = sig == SIGTERM ? "SIGTERM" : "SIGINT"
            source.setEventHandler { [weak self] in
                guard let self else { return }
                self.logger.info("received \(name); cancelling everything")
                Task { @MainActor in await self.terminate(reason: "the worker received \(name)", exitCode: 0) }
            }
            source.resume()
            // Signal sources live as long as the process: retain once, never release.
            _ = Unmanaged.passRetained(source as AnyObject)
        }
    }

    /// The parent may die without closing our stdin (it was inherited by a grandchild, say):
    /// notice the re-parenting and leave. Checked twice a second on the server's timers (the main
    /// queue), so a full compute pool cannot delay it.
    private nonisolated func watchParent() {
        let parent = getppid()
        let timers = configuration.timers
        @Sendable func check() {
            timers.after(.milliseconds(500)) { [weak self] in
                guard let self else { return }
                guard getppid() != parent else { return check() }
                self.logger.info("the parent process went away; exiting")
                Task { @MainActor in await self.terminate(reason: "the parent process exited", exitCode: 0) }
            }
        }
        check()
    }
}
