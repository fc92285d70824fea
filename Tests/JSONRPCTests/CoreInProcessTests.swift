import Foundation
@testable import JSONRPC
import JSONRPCTransport
import Logging
import Synchronization
import Testing

import Glibc

/// The read end of a pipe the writer under test writes to.
final class Capture: Sendable {
    let writer: MessageWriter
    /// The write end, for a server that makes its own writer.
    let writeFD: Int32
    private let readFD: Int32
    private let pending = Mutex<[UInt8]>([])

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        readFD = fds[0]
        writeFD = fds[1]
        writer = MessageWriter(fd: fds[1])
        _ = fcntl(readFD, F_SETFL, fcntl(readFD, F_GETFL) | O_NONBLOCK)
    }

    /// Every message written so far (after a flush), parsed.
    func messages() throws -> [JSONValue] {
        writer.flush()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var bytes = pending.withLock { p in defer { p = [] }; return p }
        while true {
            let n = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress!, $0.count) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        var out: [JSONValue] = []
        for line in bytes.split(separator: 0x0A) where !line.isEmpty {
            out.append(try JSONParser.parse(Array(line)))
        }
        return out
    }
}

/// Waits in the test until cancelled: a job that never ends by itself.
struct ParkMethod: RPCMethod {
    static let name = "test.park"
    static let cost = MethodCost.compute
    static let contract: MethodContract = "{}"
    func handle(_ params: NoParams, context: RequestContext) async throws -> EmptyResult {
        try await Task.sleep(for: .seconds(3600))
        return EmptyResult()
    }
}

/// Answers at once.
struct EchoMethod: RPCMethod {
    static let name = "test.echo"
    static let cost = MethodCost.immediate
    static let contract: MethodContract = "{}"
    struct Params: Codable, Sendable { var value: Int }
    func handle(_ params: Params, context: RequestContext) async throws -> Params { params }
}

/// The registry, the job runner and the batch collector, in process, with a manual clock.
@MainActor
struct RequestRegistryTests {
    private func job<M: RPCMethod>(_ method: M, _ id: Int, _ params: JSONValue? = nil, registry: RequestRegistry) -> Job {
        Job(handler: MethodHandler(method), params: params,
            context: RequestContext(id: RequestID(id), method: M.name, registry: registry))
    }

    private func settle(_ registry: RequestRegistry) async {
        await registry.waitForTasks(upTo: .seconds(30))
    }

    @Test func aFinishedJobIsAnsweredOnceAndLateNotificationsAreDropped() async throws {
        let out = Capture()
        let registry = RequestRegistry(writer: out.writer, stats: ServerStats(), maxJobs: 1, maxQueue: 1, timers: ManualTimers())
        #expect(registry.admit(job(EchoMethod(), 1, ["value": 7], registry: registry), id: RequestID(1), sink: .direct(out.writer)) == .admitted)
        await settle(registry)
        registry.emit(RequestID(1), params: ["late": true], isProgress: true)
        registry.terminateAll(reason: "test")  // nothing left to answer
        let messages = try out.messages()
        #expect(messages == [["jsonrpc": "2.0", "id": 1, "result": ["value": 7]]])
    }

    @Test func aCancelledJobGetsMinus32800AndAServerCancelMinus32802Once() async throws {
        let out = Capture()
        let registry = RequestRegistry(writer: out.writer, stats: ServerStats(), maxJobs: 2, maxQueue: 0, timers: ManualTimers())
        _ = registry.admit(job(ParkMethod(), 1, registry: registry), id: RequestID(1), sink: .direct(out.writer))
        _ = registry.admit(job(ParkMethod(), 2, registry: registry), id: RequestID(2), sink: .direct(out.writer))
        #expect(registry.cancel(RequestID(1)))
        registry.terminateAll(reason: "going away")
        await settle(registry)  // job 2's own outcome comes after its -32802 and is dropped
        let messages = try out.messages()
        #expect(messages.count == 2)
        #expect(messages.first { $0["id"] == 1 }?["error"]?["code"] == -32800 || messages.first { $0["id"] == 1 }?["error"]?["code"] == -32802)
        #expect(messages.first { $0["id"] == 2 }?["error"]?["code"] == -32802)
    }

    @Test func admissionRefusesDuplicatesAndOverload() async throws {
        let out = Capture()
        let registry = RequestRegistry(writer: out.writer, stats: ServerStats(), maxJobs: 1, maxQueue: 1, timers: ManualTimers())
        #expect(registry.admit(job(ParkMethod(), 1, registry: registry), id: RequestID(1), sink: .direct(out.writer)) == .admitted)
        #expect(registry.admit(job(ParkMethod(), 1, registry: registry), id: RequestID(1), sink: .direct(out.writer)) == .duplicateID)
        #expect(registry.admit(job(ParkMethod(), 2, registry: registry), id: RequestID(2), sink: .direct(out.writer)) == .admitted)
        #expect(registry.admit(job(ParkMethod(), 3, registry: registry), id: RequestID(3), sink: .direct(out.writer)) == .overloaded)
        #expect(registry.counts.running + registry.counts.queued == 2, "the refused job is not counted")
        registry.terminateAll(reason: "test")
        await settle(registry)
    }

    @Test func waitUntilIdleTimesOutOnTheInjectedClock() async throws {
        let out = Capture()
        let timers = ManualTimers()
        let registry = RequestRegistry(writer: out.writer, stats: ServerStats(), maxJobs: 1, maxQueue: 0, timers: timers)
        _ = registry.admit(job(ParkMethod(), 1, registry: registry), id: RequestID(1), sink: .direct(out.writer))
        async let idle = registry.waitUntilIdle(timeout: .seconds(3600))
        await Task.yield()
        timers.fireAll()  // an hour passes, instantly
        #expect(await idle == false)
        registry.terminateAll(reason: "test")
        #expect(await registry.waitUntilIdle(timeout: .seconds(3600)))
        await settle(registry)
    }

    @Test func aBatchIsWrittenOnceEveryMemberIsAnswered() throws {
        let out = Capture()
        let batch = BatchCollector(writer: out.writer)
        batch.add(OutgoingMessage.success(id: RequestID(1), result: .emptyObject))
        batch.seal(expecting: 2)
        #expect(try out.messages().isEmpty)
        batch.add(OutgoingMessage.success(id: RequestID(2), result: .emptyObject))
        let messages = try out.messages()
        #expect(messages.count == 1)
        guard case .array(let members)? = messages.first else { Issue.record("not an array"); return }
        #expect(members.map { $0["id"] } == [1, 2])
        let notifications = BatchCollector(writer: out.writer)
        notifications.seal(expecting: 0)
        #expect(try out.messages().isEmpty, "an all-notification batch writes nothing")
    }
}

/// A component that records its lifecycle.
final class Recorder: ServerComponent {
    let events = Mutex<[String]>([])
    func start() { events.withLock { $0.append("start") } }
    func stop() { events.withLock { $0.append("stop") } }
}

/// The whole server in process over pipes: it returns its exit code instead of exiting.
@MainActor
struct ServerInProcessTests {
    @Test func exitWithoutShutdownReturnsOneAndComponentsStartAndStop() async throws {
        var input: [Int32] = [0, 0]
        #expect(pipe(&input) == 0)
        let out = Capture()
        var configuration = ServerConfiguration()
        configuration.handleSignals = false
        configuration.watchParent = false
        let recorder = Recorder()
        configuration.components = [recorder]
        var methods = MethodTable()
        methods.register(EchoMethod())
        let server = Server(configuration: configuration, methods: methods, input: input[0],
                            output: dup(out.writeFD), logger: Logger(label: "test"))
        let lines = #"{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"value":3}}"# + "\n"
            + #"{"jsonrpc":"2.0","id":2,"method":"exit"}"# + "\n"
        _ = lines.utf8CString.withUnsafeBufferPointer { write(input[1], $0.baseAddress!, lines.utf8.count) }
        let code = await server.run()
        #expect(code == 1, "exit before shutdown is 1, as in LSP")
        #expect(recorder.events.withLock { $0 } == ["start", "stop"])
        let replies = try out.messages()
        // The echo is answered exactly once: by its result, or by -32802 if `exit` (read in the
        // same batch) came first.
        let echo = replies.filter { $0["id"] == 1 }
        #expect(echo.count == 1)
        #expect(echo.first?["result"] == ["value": 3] || echo.first?["error"]?["code"] == -32802)
        #expect(replies.filter { $0["id"] == 2 } == [["jsonrpc": "2.0", "id": 2, "result": [:]]])
        close(input[1])
    }
}
