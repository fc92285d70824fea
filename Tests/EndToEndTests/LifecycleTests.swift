import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
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
        let fd = output.fileHandleForReading.fileDescriptor
        let capacity = Int(fcntl(fd, pipeSizeCommand))
        #expect(await eventually(timeout: .seconds(30)) {
            var queued: Int32 = 0
            _ = ioctl(fd, UInt(FIONREAD), &queued)
            return Int(queued) >= capacity
        }, "the replies fill our stdout's pipe (\(capacity) bytes)")
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
