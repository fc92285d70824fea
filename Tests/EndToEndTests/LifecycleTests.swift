import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Synchronization
import Testing

import Glibc

@Suite(.timeLimit(TestTiming.minutes(10)))
struct LifecycleTests {
    @Test func initializeDescribesTheServer() async throws {
        let w = try WorkerProcess()
        let r = try #require(try await w.call(1, "initialize", ["clientInfo": ["name": "test"]])["result"])
        #expect(r["serverInfo"]?["name"] == "photoworker")
        #expect(r["protocolVersion"]?.stringValue != nil)
        guard case .array(let methods) = r["methods"] else {
            Issue.record("methods missing")
            return
        }
        let names = Set(methods.compactMap { $0["name"]?.stringValue })
        #expect(names.isSuperset(of: ["ping", "jobs.list", "jobs.cancel", "worker.stats", "shutdown", "diagnostics.spin"]))
        #expect(r["limits"]?["maxJobs"]?.intValue != nil)
    }

    @Test func endOfInputDrainsInFlightWork() async throws {
        let w = try WorkerProcess()
        w.request(1, "diagnostics.sleep", ["ms": 300])
        w.request(2, "diagnostics.spin", ["ms": 100])
        w.closeStdin()
        let all = try await w.drain()
        #expect(Set(all.compactMap { $0["id"]?.intValue }) == [1, 2])
        #expect(all.allSatisfy { $0["result"] != nil })
        #expect(try await w.waitForExit() == 0)
    }

    @Test func drainTimeoutCancelsTheRestWithServerCancelled() async throws {
        let w = try WorkerProcess(["--drain-timeout", "0.2"])
        w.request(1, "diagnostics.sleep", ["ms": 600_000])
        w.closeStdin()
        let r = try #require(try await w.next())
        #expect(r["error"]?["code"] == -32802)
        #expect(try await w.next() == nil)
        #expect(try await w.waitForExit() == 0)
    }

    @Test func shutdownWaitsForInFlightThenExitCodeZero() async throws {
        let w = try WorkerProcess()
        w.request(1, "diagnostics.sleep", ["ms": 300])
        w.request(2, "shutdown")
        w.request(3, "ping")  // after shutdown: refused
        let refused = try #require(try await w.next())
        #expect(refused["id"] == 3)
        #expect(refused["error"]?["code"] == -32600)
        #expect(try await w.next()?["id"] == 1)
        #expect(try await w.next() == ["jsonrpc": "2.0", "id": 2, "result": [:]])
        w.notify("exit")
        #expect(try await w.waitForExit() == 0)
    }

    @Test func exitWithoutShutdownIsCodeOne() async throws {
        let w = try WorkerProcess()
        w.request(1, "diagnostics.sleep", ["ms": 600_000])
        w.notify("exit")
        let r = try #require(try await w.next())
        #expect(r["error"]?["code"] == -32802)
        #expect(try await w.waitForExit() == 1)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func signalCancelsEverythingWithServerCancelled(_ sig: Int32) async throws {
        let w = try WorkerProcess()
        w.request(1, "diagnostics.spin", ["ms": 600_000])
        w.request(2, "diagnostics.sleep", ["ms": 600_000])
        try await w.waitForJobs { !$0.isEmpty }
        kill(w.process.processIdentifier, sig)
        let replies = try await w.drain()
        #expect(Set(replies.compactMap { $0["id"]?.intValue }) == [1, 2])
        #expect(replies.allSatisfy { $0["error"]?["code"] == -32802 })
        #expect(try await w.waitForExit() == 0)
    }

    @Test(arguments: [false, true])
    func clientClosingItsEndMakesTheWorkerExit(whileWriting: Bool) async throws {
        // A client that goes away: its read end of our stdout is closed while a job runs.
        let p = Process()
        p.executableURL = WorkerProcess.binary
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        try output.fileHandleForReading.close()
        var lines = #"{"jsonrpc":"2.0","id":1,"method":"diagnostics.spin","params":{"ms":60000}}"# + "\n"
        if whileWriting {
            lines += #"{"jsonrpc":"2.0","id":2,"method":"ping"}"# + "\n"
        }
        try input.fileHandleForWriting.write(contentsOf: Data(lines.utf8))
        #expect(await eventually(timeout: .seconds(30)) { !p.isRunning },
                "the worker must notice the closed stream and exit")
        if p.isRunning { p.terminate() }
        #expect(p.terminationStatus == 0)
    }

    /// A client that stops reading our stdout but keeps it open: the replies fill the pipe and the writer waits for
    /// room that never comes. Asked to stop (its stdin closed, or SIGTERM), the worker still exits, within the
    /// writer's limit (10 s after the end of input, 5 s after a signal), with code 0.
    @Test(arguments: [false, true])
    func aWorkerWhoseStdoutIsNeverReadStillExits(bySignal: Bool) async throws {
        let p = Process()
        p.executableURL = WorkerProcess.binary
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        // Two OpenRPC documents (about 140 KB each): more than the pipe holds.
        let requests = (1...2).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"rpc.discover"}"# + "\n" }.joined()
        try input.fileHandleForWriting.write(contentsOf: Data(requests.utf8))
        await expectRepliesFill(output)
        let asked = ContinuousClock.now
        if bySignal {
            kill(p.processIdentifier, SIGTERM)
        } else {
            try input.fileHandleForWriting.close()
        }
        #expect(await eventually(timeout: .seconds(40)) { !p.isRunning }, "the worker must exit although nobody reads its replies")
        let took = ContinuousClock.now - asked
        #expect(took < .seconds(25), "exited \(took) after it was asked")
        if !p.isRunning { #expect(p.terminationStatus == 0, "status \(p.terminationStatus)") }
    }

    /// A SIGTERM that comes before the worker's signal service has its handlers still takes the graceful path
    /// (exit 0, a request read answered once), never the default action (killed by the signal). Sent the moment the
    /// process exists, many times. The spawner blocks SIGTERM, so a signal sent while the dynamic loader still runs
    /// (before any code of the worker's could catch it) stays pending until the worker's first line takes it;
    /// without a handler from that first line, the pending signal killed the worker every time.
    @Test func aSignalAtSpawnStillEndsTheWorkerGracefully() async throws {
        for round in 0..<20 {
            let worker = try SignalledAtSpawn(SIGTERM, request: #"{"jsonrpc":"2.0","id":1,"method":"diagnostics.sleep","params":{"ms":600000}}"#)
            let status = try await worker.waitForExit()
            #expect(status == .exited(0), "round \(round): \(status)")
            let replies = worker.replies()
            // The request may come in before or after the signal is taken, or not be read before the worker stops
            // reading: at most one reply, an error (-32802 in flight, -32600 refused).
            #expect(replies.count <= 1 && replies.allSatisfy { [-32802, -32600].contains($0["error"]?["code"]?.intValue) },
                    "round \(round): \(replies)")
            if status != .exited(0) { break }
        }
    }

    /// A request written after a SIGTERM, while the worker winds down, gets exactly one reply (-32600, "server is
    /// shutting down", naming the signal) instead of silence, and the request in flight its -32802. The worker reads
    /// on until its replies are written: here it cannot write them until the test reads, which it does only after
    /// writing the late request. The late request is written once the worker has logged the signal, so it is read
    /// after the signal was taken (one written as the signal comes may be read just before: then it is in flight,
    /// and answered -32802 or its result; still exactly once).
    @Test func aRequestWrittenAfterASignalGetsExactlyOneReply() async throws {
        let p = Process()
        p.executableURL = WorkerProcess.binary
        p.arguments = ["--diagnostics", "--log-level", "info"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = errors
        let log = Mutex("")
        Thread.detachNewThread {
            while case let chunk = errors.fileHandleForReading.availableData, !chunk.isEmpty {
                log.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        // A sleep in flight, then two OpenRPC documents (about 140 KB each): more than the pipe holds.
        let requests = [#"{"jsonrpc":"2.0","id":1,"method":"diagnostics.sleep","params":{"ms":600000}}"#]
            + (2...3).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"rpc.discover"}"# }
        try input.fileHandleForWriting.write(contentsOf: Data(requests.map { $0 + "\n" }.joined().utf8))
        await expectRepliesFill(output)
        kill(p.processIdentifier, SIGTERM)
        let signalled = ContinuousClock.now
        #expect(await eventually(timeout: .seconds(30)) { log.withLock { $0.contains("received SIGTERM") } },
                "the worker logs the signal: \(log.withLock { $0 })")
        var pingWritten = true
        do {
            try input.fileHandleForWriting.write(contentsOf: Data(#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#.utf8 + [0x0A]))
        } catch {
            pingWritten = false
        }
        let read = Mutex<Data?>(nil)
        Thread.detachNewThread { read.withLock { $0 = output.fileHandleForReading.readDataToEndOfFile() } }
        #expect(await eventually(timeout: .seconds(60)) { read.withLock { $0 != nil } }, "the worker's output ends")
        let bytes = read.withLock { $0 } ?? Data()
        let replies = String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            try? JSONParser.parse(Array(line.utf8))
        }
        let ids = replies.compactMap { $0["id"]?.intValue }
        #expect(Set(ids).count == ids.count, "nothing is answered twice: \(ids)")
        // The worker reads for at most 5 s after the signal, and its writer then has 5 s more: on a machine so loaded
        // that this exchange took longer, the worker may have stopped reading or writing before the test got there,
        // and only the line above holds.
        guard ContinuousClock.now - signalled < .seconds(4) else { return }
        #expect(pingWritten, "the late request is written while the worker still reads")
        #expect(ids == [2, 3, 1, 4], "\(ids)")
        #expect(replies.first { $0["id"] == 1 }?["error"]?["code"] == -32802)
        let late = replies.filter { $0["id"] == 4 }
        #expect(late.count == 1, "\(late)")
        #expect(late.first?["error"]?["code"] == -32600, "\(late)")
        #expect(late.first?["error"]?["data"]?["reason"] == "no new requests are accepted: the worker received SIGTERM",
                "\(late)")
        #expect(await eventually(timeout: .seconds(30)) { !p.isRunning }, "the worker exits")
        if !p.isRunning { #expect(p.terminationStatus == 0 && p.terminationReason == .exit, "status \(p.terminationStatus)") }
    }

    @Test func helpAndVersion() async throws {
        for (flag, needle) in [("--help", "USAGE"), ("--version", "0.")] {
            let p = Process()
            p.executableURL = WorkerProcess.binary
            p.arguments = [flag]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0)
            #expect(String(decoding: data, as: UTF8.self).contains(needle))
        }
    }
}

/// fcntl's F_GETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 8), which Glibc's module does not export without _GNU_SOURCE.
private let pipeSizeCommand: Int32 = 1032

/// Waits (up to 30 s) until the worker's replies fill our end of its stdout's pipe, so its next write blocks.
private func expectRepliesFill(_ output: Pipe) async {
    let fd = output.fileHandleForReading.fileDescriptor
    let capacity = Int(fcntl(fd, pipeSizeCommand))
    #expect(await eventually(timeout: .seconds(30)) {
        var queued: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &queued)
        return Int(queued) >= capacity
    }, "the replies fill our stdout's pipe (\(capacity) bytes)")
}

/// The worker spawned with SIGTERM and SIGINT blocked and sent `signal` at once (it stays pending through the
/// dynamic loader, until the worker unblocks it): what a supervisor that must not lose an early signal does.
private struct SignalledAtSpawn {
    enum Status: Equatable, CustomStringConvertible {
        case exited(Int32), killed(Int32)
        var description: String {
            switch self {
            case .exited(let code): "exited \(code)"
            case .killed(let signal): "killed by signal \(signal)"
            }
        }
    }

    let pid: pid_t
    private let stdinWrite: Int32
    private let stdoutRead: Int32

    /// - Parameter request: written to the worker's stdin before the signal (stdin stays open: the worker ends by
    ///   the signal, not by the end of its input).
    init(_ signal: Int32, request: String) throws {
        var stdinPipe: [Int32] = [0, 0], stdoutPipe: [Int32] = [0, 0]
        guard pipe(&stdinPipe) == 0, pipe(&stdoutPipe) == 0 else { throw POSIXError(.EMFILE) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        for fd in stdinPipe + stdoutPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        sigaddset(&blocked, SIGINT)
        posix_spawnattr_setsigmask(&attributes, &blocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let path = WorkerProcess.binary.path
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), strdup("--diagnostics"), nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        close(stdinPipe[0])
        close(stdoutPipe[1])
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        self.pid = pid
        stdinWrite = stdinPipe[1]
        stdoutRead = stdoutPipe[0]
        let line = Array((request + "\n").utf8)
        _ = line.withUnsafeBytes { write(stdinWrite, $0.baseAddress, $0.count) }
        kill(pid, signal)
    }

    /// How the worker ended (then its stdin is closed).
    func waitForExit() async throws -> Status {
        var status: Int32 = 0
        let ended = await eventually(timeout: .seconds(60)) { waitpid(pid, &status, WNOHANG) == pid }
        close(stdinWrite)
        guard ended else { throw TimedOut(what: "worker \(pid) to end") }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Glibc's module does not export.
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .killed(status & 0x7F)
    }

    /// The replies the worker wrote (read once it has ended).
    func replies() -> [JSONValue] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(stdoutRead, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        close(stdoutRead)
        return bytes.split(separator: 0x0A).compactMap { try? JSONParser.parse(Array($0)) }
    }
}
