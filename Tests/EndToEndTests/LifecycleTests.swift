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
