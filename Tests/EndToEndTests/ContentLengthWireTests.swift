import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// The worker spoken to with LSP's Content-Length framing, as editors' stock clients do: it
/// detects the framing, answers in it, and keeps every guarantee it gives NDJSON clients.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct ContentLengthWireTests {
    @Test func answersInTheFramingItWasSpokenTo() async throws {
        let w = try WorkerProcess(framing: .contentLength)
        // The reader gives bodies without framing; a raw body proves nothing else came with it.
        w.request(1, "ping")
        #expect(try await w.nextRawLine() == #"{"jsonrpc":"2.0","id":1,"result":{}}"#)
        let info = try await w.call(2, "image.info", ["source": ["path": .string(Corpus.photo("girl-1.jpg"))]])
        #expect(info["result"]?["format"] == "jpeg")
    }

    @Test func cancellationExactlyOneReplyAndDrainAtEndOfInput() async throws {
        let w = try WorkerProcess(framing: .contentLength)
        w.request(1, "diagnostics.sleep", ["ms": 60_000])
        w.request(2, "diagnostics.sleep", ["ms": 50])
        w.cancel(1)
        let (cancelled, _) = try await w.response(1)
        #expect(cancelled.errorCode == -32800)
        w.closeStdin()
        let rest = try await w.drain()
        #expect(rest.count == 1 && rest.first?["id"] == 2 && rest.first?["result"] != nil, "\(rest)")
        #expect(try await w.waitForExit() == 0)
    }

    /// Each hostile header block is answered -32700 with `data.reason`, and the next message is served.
    @Test("hostile header blocks", arguments: [
        ("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n", "no Content-Length"),
        ("Content-Length: -5\r\n\r\n", "non-negative decimal integer"),
        ("Content-Length: twelve\r\n\r\n", "non-negative decimal integer"),
        ("Content-Length: 123456789012345678901234567890\r\n\r\n", "too large"),
        ("Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "given twice"),
        ("Content-Length: 2\r\nContent-Length: 9\r\n\r\n", "different values"),
        ("Content-Length 40\r\n\r\n", "no colon"),
        ("Content-Type: " + String(repeating: "z", count: 9000) + "\r\n\r\n", "exceeds"),
    ])
    func hostileHeaders(_ bad: String, _ reason: String) async throws {
        let w = try WorkerProcess(framing: .contentLength)
        // A first message settles the framing; the hostile block comes in the session.
        #expect(try await w.call(6, "ping")["result"] == .object([:]))
        w.sendBytes(Array(bad.utf8))
        w.request(7, "ping")
        let (pong, before) = try await w.response(7)
        #expect(pong["result"] == .object([:]))
        #expect(before.count == 1, "exactly one reply for the bad block: \(before)")
        #expect(before.first?.errorCode == -32700)
        #expect(before.first?["id"] == .null)
        let text = before.first?["error"]?["data"]?["reason"]?.stringValue ?? ""
        #expect(text.contains(reason), "\(text)")
    }

    @Test func aBodyOverTheCapIsRefusedAndSkippedWithoutBufferingIt() async throws {
        let w = try WorkerProcess(["--max-line-bytes", "1024"], framing: .contentLength)
        #expect(try await w.call(1, "ping")["result"] == .object([:]))
        let baseline = try residentBytes(w.process.processIdentifier)
        // 64 MiB announced. Once half of it has been written into the 64 KiB pipe, the worker has
        // read all but the pipe's worth of it: its resident memory must not have grown by it.
        let size = 64 << 20
        w.sendBytes(Array("Content-Length: \(size)\r\n\r\n".utf8))
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<32 { w.sendBytes(chunk) }
        let midway = try residentBytes(w.process.processIdentifier)
        #expect(midway - baseline < 16 << 20, "resident memory grew from \(baseline) to \(midway) bytes: the body was buffered")
        for _ in 32..<64 { w.sendBytes(chunk) }
        w.request(3, "ping")
        let (pong, before) = try await w.response(3)
        #expect(pong["result"] == .object([:]))
        #expect(before.first?.errorCode == -32700)
        #expect(before.first?["error"]?["data"]?["length"]?.intValue == size)
        #expect(before.first?["error"]?["data"]?["limit"] == 1024)
    }

    /// VmRSS of a process now (not its peak, which a child inherits from the test runner at fork).
    private func residentBytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kb = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kb * 1024
    }

    @Test func aBodyCutShortByEndOfInputIsReportedAndTheWorkerEndsCleanly() async throws {
        let w = try WorkerProcess(framing: .contentLength)
        w.sendBytes(Array("Content-Length: 100\r\n\r\n{\"jsonrpc\":".utf8))
        w.closeStdin()
        let rest = try await w.drain()
        #expect(rest.count == 1)
        #expect(rest.first?.errorCode == -32700)
        #expect(rest.first?["error"]?["data"]?["reason"]?.stringValue?.contains("short of the 100") == true)
        #expect(try await w.waitForExit() == 0)
    }

    @Test func headerLinesEndingInABareLineFeedAreAccepted() async throws {
        let w = try WorkerProcess(framing: .contentLength)
        let body = #"{"jsonrpc":"2.0","id":5,"method":"ping"}"#
        w.sendBytes(Array("content-length: \(body.utf8.count)\n\n\(body)".utf8))
        #expect(try await w.response(5).response["result"] == .object([:]))
    }

    @Test func aForcedFramingIsNotDetected() async throws {
        // NDJSON forced: a Content-Length header line is just a line that is not JSON.
        let w = try WorkerProcess(["--framing", "ndjson"])
        w.sendBytes(Array("Content-Length: 2\r\n".utf8))
        w.request(1, "ping")
        let (pong, before) = try await w.response(1)
        #expect(pong["result"] == .object([:]))
        #expect(before.map(\.errorCode) == [-32700])
        // Content-Length forced: replies are framed even before the client has said anything.
        let lsp = try WorkerProcess(["--framing", "content-length"], framing: .contentLength)
        lsp.request(2, "ping")
        #expect(try await lsp.response(2).response["result"] == .object([:]))
    }
}
