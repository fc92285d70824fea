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
        #expect(try await asking.value == ["roots": []])
        timers.fireAll()  // the timeout after the answer: nothing to resolve twice
        #expect(!peer.deliver(id: .string("s-1"), result: nil, error: nil), "answered twice")
    }

    @Test func aRequestTimesOutOnTheInjectedClock() async throws {
        let timers = ManualTimers()
        let (peer, _) = peer(timers)
        let asking = Task { try await peer.request("roots/list", timeout: .seconds(10)) }
        try await Deadline.until("the request sent") { timers.count == 1 }
        timers.fireAll()
        await #expect(throws: PeerError.timedOut(method: "roots/list")) { try await asking.value }
    }

    @Test func aCancelledRequestThrowsAtOnceAndClosingFailsTheOthers() async throws {
        let timers = ManualTimers()
        let (peer, _) = peer(timers)
        let cancelled = Task { try await peer.request("a") }
        let pending = Task { try await peer.request("b") }
        try await Deadline.until("both requests sent") { timers.count == 2 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        peer.close()
        await #expect(throws: PeerError.closed) { try await pending.value }
        await #expect(throws: PeerError.closed) { try await peer.request("c") }
    }
}
