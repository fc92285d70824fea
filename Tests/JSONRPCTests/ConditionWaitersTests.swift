@testable import JSONRPC
import JSONRPCTransport
import Testing

/// `ConditionWaiters` lives inside an actor; this one plays the registry's part.
private actor Owner {
    var waiters = ConditionWaiters()

    func wait() async -> Bool {
        let ticket = waiters.ticket()
        return await withCheckedContinuation { waiters.park(ticket, $0) }
    }

    /// Parks a waiter and returns its ticket through `parked` once it is in the table.
    func wait(reporting parked: AsyncStream<UInt64>.Continuation) async -> Bool {
        let ticket = waiters.ticket()
        return await withCheckedContinuation {
            waiters.park(ticket, $0)
            parked.yield(ticket)
        }
    }

    func resumeAll() { waiters.resumeAll() }
    func expire(_ ticket: UInt64) { waiters.expire(ticket) }
    var isEmpty: Bool { waiters.isEmpty }
}

struct ConditionWaitersTests {
    @Test func everyWaiterIsResumedWhenTheConditionTurnsTrue() async {
        let owner = Owner()
        let (parked, parkedCont) = AsyncStream.makeStream(of: UInt64.self)
        let waits = (0..<3).map { _ in Task { await owner.wait(reporting: parkedCont) } }
        var iterator = parked.makeAsyncIterator()
        for _ in 0..<3 { _ = await iterator.next() }
        await owner.resumeAll()
        for w in waits { #expect(await w.value == true) }
        #expect(await owner.isEmpty)
    }

    @Test func anExpiredWaiterGetsFalseOnceAndTheOthersStillWait() async {
        let owner = Owner()
        let (parked, parkedCont) = AsyncStream.makeStream(of: UInt64.self)
        let first = Task { await owner.wait(reporting: parkedCont) }
        var iterator = parked.makeAsyncIterator()
        let firstTicket = await iterator.next()!
        let second = Task { await owner.wait(reporting: parkedCont) }
        _ = await iterator.next()
        await owner.expire(firstTicket)
        #expect(await first.value == false)
        #expect(await !owner.isEmpty)
        // A second expiry of the same ticket and the later resumeAll must not resume it again
        // (a double resume of a checked continuation traps).
        await owner.expire(firstTicket)
        await owner.resumeAll()
        #expect(await second.value == true)
    }
}
