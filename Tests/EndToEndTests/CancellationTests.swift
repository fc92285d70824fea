import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

@Suite(.timeLimit(TestTiming.minutes(10)))
struct CancellationTests {
    @Test func cancellingARunningSpinAnswersRequestCancelled() async throws {
        let w = try WorkerProcess()
        w.request(1, "diagnostics.spin", ["ms": 600_000])
        // Wait until it is really running.
        try await w.waitForJobs { !$0.isEmpty }
        w.cancel(1)
        let r = try #require(try await w.next())
        #expect(r == ["jsonrpc": "2.0", "id": 1, "error": ["code": -32800, "message": "request cancelled"]])
    }

    @Test func cancellingAQueuedJobFreesItsPlace() async throws {
        let w = try WorkerProcess(["--max-jobs", "1"])
        w.request(1, "diagnostics.spin", ["ms": 600_000])
        w.request(2, "diagnostics.spin", ["ms": 1])
        w.cancel(2)
        let r = try #require(try await w.next())
        #expect(r["id"] == 2)
        #expect(r["error"]?["code"] == -32800)
        w.cancel(1)
        #expect(try await w.next()?["id"] == 1)
    }

    @Test func mcpStyleCancelAndAcknowledgedCancel() async throws {
        let w = try WorkerProcess()
        w.request(1, "diagnostics.sleep", ["ms": 600_000])
        w.request(2, "diagnostics.sleep", ["ms": 600_000])
        w.notify("notifications/cancelled", ["requestId": 1, "reason": "user"])
        let r1 = try #require(try await w.next())
        #expect(r1["id"] == 1)
        #expect(r1["error"]?["code"] == -32800)
        w.request(3, "jobs.cancel", ["id": 2])
        let replies = [try #require(try await w.next()), try #require(try await w.next())]
        let byID = Dictionary(replies.map { ($0["id"]!.intValue!, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byID[3]?["result"] == ["cancelled": true])
        #expect(byID[2]?["error"]?["code"] == -32800)
        #expect(try await w.call(4, "jobs.cancel", ["id": 2])["result"] == ["cancelled": false])
    }

    @Test func cancellingFinishedOrUnknownIDsWritesNothing() async throws {
        let w = try WorkerProcess()
        #expect(try await w.call(1, "ping")["result"] == [:])
        w.cancel(1)  // finished
        w.cancel(1)  // twice
        w.cancel(12345)  // unknown
        w.notify("$/cancelRequest", ["id": ["not": "an id"]])
        w.notify("$/cancelRequest")
        // The very next line is the ping reply: the cancels produced no output.
        #expect(try await w.call(2, "ping") == ["jsonrpc": "2.0", "id": 2, "result": [:]])
    }

    @Test func cancellingTwiceGivesExactlyOneReply() async throws {
        let w = try WorkerProcess()
        w.request(1, "diagnostics.fanout", ["children": 4, "ms": 600_000])
        w.cancel(1)
        w.cancel(1)
        let (r, _) = try await w.response(1)
        #expect(r["error"]?["code"] == -32800)
        w.request(2, "ping")
        let (pong, between) = try await w.response(2)
        #expect(pong["result"] == [:])
        #expect(between.isEmpty)
    }

    @Test func cancelMidFanoutStopsTheStream() async throws {
        let w = try WorkerProcess()
        // The children sleep 2 s, 4 s, ... an hour: the first item comes soon, the last long after the cancel even
        // when this test waits its turn for minutes among every suite at once (with 100 s in all, it once read the
        // first item after the last had come, and the cancel found the job done).
        w.request(1, "diagnostics.fanout", ["children": 1800, "ms": 3_600_000])
        // Wait for the first item, then cancel.
        let first = try #require(try await w.next())
        #expect(first["params"]?["kind"] == "item")
        w.cancel(1)
        let (final, _) = try await w.response(1)
        #expect(final["error"]?["code"] == -32800)
        w.request(2, "ping")
        let (_, after) = try await w.response(2)
        #expect(after.isEmpty, "nothing may be written for request 1 after its final reply: \(after)")
    }
}
