import Deadlines
@testable import JSONRPC
import JSONRPCTransport
import Testing

/// The server's requests to the client: answered, timed out on the injected clock, cancelled, or failed when the
/// session ends, each exactly once.
@MainActor
@Suite(.timeLimit(.minutes(10)))
struct PeerTests {
    private func peer(_ timers: ManualTimers) -> (Peer, Capture) {
        let out = Capture()
        return (Peer(writer: out.writer, timers: timers, idPrefix: "s-"), out)
    }

    @Test func anAnswerResolvesItsRequestAndALateTimeoutChangesNothing() async throws {
        let timers = ManualTimers()
        let (peer, out) = peer(timers)
        let asking = Task { try await peer.request("roots/list", timeout: .seconds(1)) }
        try await Deadline.until("the request sent") { timers.count == 1 }
        #expect(try await out.messages() == [["jsonrpc": "2.0", "id": "s-1", "method": "roots/list"]])
        #expect(peer.deliver(id: .string("s-1"), result: ["roots": []], error: nil))
        #expect(try await Deadline.value(of: asking, "the answered roots/list request") == ["roots": []])
        #expect(timers.count == 0, "the answered request's timeout is cancelled, not left to fire: \(timers.count) pending")
        #expect(!peer.deliver(id: .string("s-1"), result: nil, error: nil), "answered twice")
    }

    /// However a request ends (answered with an error, cancelled, or failed by the session's end), its timeout is
    /// cancelled with it; one that times out has no timer left either.
    @Test func everyEndingCancelsTheRequestsTimeout() async throws {
        let timers = ManualTimers()
        let (peer, _) = peer(timers)
        let refused = Task { try await peer.request("a") }
        try await Deadline.until("the request sent") { timers.count == 1 }
        #expect(peer.deliver(id: .string("s-1"), result: nil, error: ["code": -32601, "message": "no"]))
        await #expect(throws: RPCError.self) { try await Deadline.value(of: refused, "the request answered with an error") }
        #expect(timers.count == 0, "after an error answer: \(timers.count) pending")

        let cancelled = Task { try await peer.request("b") }
        try await Deadline.until("the request sent") { timers.count == 1 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: cancelled, "the cancelled request") }
        #expect(timers.count == 0, "after a cancel: \(timers.count) pending")

        let timedOut = Task { try await peer.request("c") }
        try await Deadline.until("the request sent") { timers.count == 1 }
        timers.fireAll()
        await #expect(throws: PeerError.timedOut(method: "c")) { try await Deadline.value(of: timedOut, "the timed-out request") }

        let closed = Task { try await peer.request("d") }
        try await Deadline.until("the request sent") { timers.count == 1 }
        peer.close()
        await #expect(throws: PeerError.closed) { try await Deadline.value(of: closed, "the request failed by close") }
        #expect(timers.count == 0, "after the session closed: \(timers.count) pending")
    }

    @Test func aRequestTimesOutOnTheInjectedClock() async throws {
        let timers = ManualTimers()
        let (peer, _) = peer(timers)
        let asking = Task { try await peer.request("roots/list", timeout: .seconds(10)) }
        try await Deadline.until("the request sent") { timers.count == 1 }
        timers.fireAll()
        await #expect(throws: PeerError.timedOut(method: "roots/list")) { try await Deadline.value(of: asking, "the timed-out roots/list request") }
    }

    @Test func aCancelledRequestThrowsAtOnceAndClosingFailsTheOthers() async throws {
        let timers = ManualTimers()
        let (peer, _) = peer(timers)
        let cancelled = Task { try await peer.request("a") }
        let pending = Task { try await peer.request("b") }
        try await Deadline.until("both requests sent") { timers.count == 2 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: cancelled, "the cancelled request") }
        peer.close()
        await #expect(throws: PeerError.closed) { try await Deadline.value(of: pending, "the request failed by close") }
        await #expect(throws: PeerError.closed) { try await peer.request("c") }
    }
}
