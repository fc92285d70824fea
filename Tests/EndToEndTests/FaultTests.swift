import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

import Glibc

/// Faults around a running batch: the client vanishing, stdin closing, SIGTERM, the parent dying.
/// In every case the worker ends promptly by itself, leaves no child processes, and its output
/// folder holds only complete PNGs (no `.tmp-` files).
///
/// Serialized: each test runs a batch that keeps both cores busy, and under ThreadSanitizer three such
/// batches at once (beside the other suites) starved each other past the time guards.
@Suite(.serialized, .timeLimit(TestTiming.minutes(10)))
struct FaultTests {
    /// Enough corpus photos that the batch is still running when the fault hits (after the first
    /// item at least two photos remain per core), all small so the batch stays cheap.
    static var batchSources: JSONValue {
        let names = ["animal-2.jpg", "girl-1.jpg", "girl-2.jpg", "car-1.jpg", "car-3.jpg",
                     "logo.png", "pillow-hopper_gray.jpg", "libjpeg-testorig.jpg"]
        let photos = names.map { Corpus.root.appendingPathComponent("photos/" + $0) }
        return .array(photos.map { ["path": .string($0.path)] })
    }

    /// The classical cut: these tests are about the surroundings failing, and must stay quick under
    /// the thread sanitizer (the network pass is many times slower instrumented).
    static func batch(into folder: TempFolder) -> JSONValue {
        ["sources": batchSources, "output": ["dir": .string(folder.path + "/out")], "count": 3, "segmenter": "classical"]
    }

    /// Reads lines from `fd` with poll(2) (no reader thread, so the test may close `fd` afterwards)
    /// until `done` accepts one; returns the lines read.
    static func readLines(_ fd: Int32, timeout: Duration = .seconds(30), until done: (JSONValue) -> Bool) throws -> [JSONValue] {
        let deadline = ContinuousClock.now + TestTiming.guarded(timeout)
        var pending: [UInt8] = []
        var lines: [JSONValue] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while ContinuousClock.now < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 50) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw TimedOut(what: "a line (stream ended)") }
            pending += buffer[0..<n]
            while let nl = pending.firstIndex(of: 0x0A) {
                let value = try JSONParser.parse(Array(pending[..<nl]))
                pending.removeSubrange(...nl)
                lines.append(value)
                if done(value) { return lines }
            }
        }
        throw TimedOut(what: "a matching line")
    }

    static func isItem(_ m: JSONValue) -> Bool { m["method"] == "$/progress" && m["params"]?["kind"] == "item" }

    @Test func clientDisappearingMidBatchEndsTheWorkerCleanly() async throws {
        let folder = try TempFolder("fault-client")
        defer { folder.remove() }
        let p = Process()
        p.executableURL = WorkerProcess.binary
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        let request: JSONValue = ["jsonrpc": "2.0", "id": 1, "method": "photos.process", "params": Self.batch(into: folder)]
        try input.fileHandleForWriting.write(contentsOf: Data((request.jsonString + "\n").utf8))
        let fd = output.fileHandleForReading.fileDescriptor
        _ = try Self.readLines(fd, until: Self.isItem)
        #expect(childProcesses(of: p.processIdentifier).isEmpty, "the worker runs no child processes")
        try output.fileHandleForReading.close()  // the client is gone; stdin stays open
        #expect(await eventually(timeout: .seconds(30)) { !p.isRunning }, "the worker must notice and exit")
        if p.isRunning { p.terminate() }
        #expect(p.terminationStatus == 0)
        let pngs = expectOnlyCompletePNGs(in: folder.path + "/out")
        #expect(pngs.count >= 1)
    }

    @Test func stdinClosingMidBatchFinishesTheBatchThenExits() async throws {
        let folder = try TempFolder("fault-stdin")
        defer { folder.remove() }
        let w = try WorkerProcess()
        w.request(1, "photos.process", Self.batch(into: folder))
        w.request(2, "diagnostics.sleep", ["ms": 50])
        var first = try await w.next()
        while let m = first, !Self.isItem(m) { first = try await w.next() }
        w.closeStdin()
        let rest = try await w.drain(timeout: .seconds(60))
        let final = try #require(rest.first { $0["id"] == 1 && $0["method"] == nil })
        let total = try #require(final["result"]?["total"]?.intValue)
        let completed = try #require(final["result"]?["completed"]?.intValue)
        #expect(completed + (final["result"]?["failed"]?.intValue ?? -1) == total, "every photo was done: \(final)")
        let after = rest.drop { $0 != final }.dropFirst()
        #expect(!after.contains { $0["id"] == 1 || $0["params"]?["id"] == 1 }, "nothing for the batch after its final reply")
        #expect(try await w.waitForExit() == 0)
        let pngs = expectOnlyCompletePNGs(in: folder.path + "/out")
        #expect(pngs.count == 2 * completed, "a sticker and a gradient sticker per completed photo")
    }

    @Test func sigtermMidBatchCancelsAndLeavesNoPartialFiles() async throws {
        // A loaded test process may read the first item only after the whole batch has ended (8 photos in 5 s on
        // CI): then the signal found nothing in flight and the attempt tested nothing; it is made again.
        try await WorkerProcess.untilCancelledInFlight {
            let folder = try TempFolder("fault-sigterm")
            defer { folder.remove() }
            let w = try WorkerProcess()
            w.request(1, "photos.process", Self.batch(into: folder))
            // Wait for the first item (a progress notification may come first).
            while let m = try await w.next(), !Self.isItem(m) {}
            #expect(childProcesses(of: w.process.processIdentifier).isEmpty)
            kill(w.process.processIdentifier, SIGTERM)
            let rest = try await w.drain(timeout: .seconds(30))
            let final = try #require(rest.last { $0["id"] == 1 && $0["method"] == nil }, "no final reply: \(rest)")
            #expect(try await w.waitForExit() == 0)
            guard final["result"] == nil else { return false }
            #expect(final.errorCode == -32802 && rest.last == final, "the final reply, last: \(final)")
            #expect(rest.filter { $0["id"] == 1 }.count == 1, "exactly one final reply")
            expectOnlyCompletePNGs(in: folder.path + "/out")
            return true
        }
    }

    /// The parent (an intermediate shell) is killed without closing the pipes it passed on: stdin
    /// never reaches EOF, so the worker must notice the re-parenting and leave by itself.
    @Test func parentDeathWithoutEOFMakesTheWorkerExit() async throws {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        // A background job of a non-interactive sh gets /dev/null as stdin; dash even ignores `<&0`,
        // so the pipe goes through fd 3.
        shell.arguments = ["-c", #"exec 3<&0; "$0" --diagnostics --log-level info 0<&3 3<&- & echo "$!"; wait"#, WorkerProcess.binary.path]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        shell.standardInput = input
        shell.standardOutput = output
        shell.standardError = errors
        try shell.run()
        let inbox = Inbox()
        let fd = output.fileHandleForReading.fileDescriptor
        Thread.detachNewThread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1 << 14)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                pending += buffer[0..<n]
                while let nl = pending.firstIndex(of: 0x0A) {
                    inbox.push(.message(Array(pending[..<nl])))
                    pending.removeSubrange(...nl)
                }
            }
            inbox.push(.eof)
        }
        guard case .message(let pidLine) = try await inbox.next(timeout: .seconds(60)),
              let workerPID = pid_t(String(decoding: pidLine, as: UTF8.self)) else {
            Issue.record("the shell did not report the worker's pid")
            return
        }
        defer { if !processIsGone(workerPID) { kill(workerPID, SIGKILL) } }
        let send = { (line: String) in try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8)) }
        send(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        send(#"{"jsonrpc":"2.0","id":2,"method":"diagnostics.sleep","params":{"ms":60000}}"#)
        guard case .message(let pong) = try await inbox.next(timeout: .seconds(60)) else {
            Issue.record("no reply from the worker")
            return
        }
        #expect(try JSONParser.parse(pong)["id"] == 1)

        kill(shell.processIdentifier, SIGKILL)
        #expect(await eventually(timeout: .seconds(30)) { processIsGone(workerPID) },
                "the worker must exit after its parent died (it polls getppid)")
        // Its in-flight job was answered -32802 before it left; our end of stdin is still open.
        guard case .message(let cancelled) = try await inbox.next(timeout: .seconds(60)) else {
            Issue.record("no -32802 for the in-flight job")
            return
        }
        let reply = try JSONParser.parse(cancelled)
        #expect(reply["id"] == 2 && reply.errorCode == -32802, "\(reply)")
        #expect(childProcesses(of: workerPID).isEmpty)
        try? input.fileHandleForWriting.close()
    }
}
