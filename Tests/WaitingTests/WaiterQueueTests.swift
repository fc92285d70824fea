import Testing
@testable import Waiting

/// The waiter queue's state machine on its own: inputs and the actions they return, with strings for waiters and
/// no tasks, threads or clocks.
@Suite(.timeLimit(.minutes(10)))
struct WaiterQueueTests {
    typealias Queue = WaiterQueue<String, Int>

    private func resumed(_ resumes: [Queue.Resume]) -> [String] { resumes.map { "\($0.waiter)=\($0.outcome)" } }
    private func resumed(_ resume: Queue.Resume?) -> String? { resume.map { "\($0.waiter)=\($0.outcome)" } }

    @Test func parkedWaitersAreResolvedInTheOrderTheirTicketsWereTaken() {
        var q = Queue()
        let a = q.enqueue(), b = q.enqueue(), c = q.enqueue()
        // Tasks reach the queue in another order than they took their tickets.
        #expect(resumed(q.park(c, "c")) == nil)
        #expect(resumed(q.park(a, "a")) == nil)
        #expect(resumed(q.park(b, "b")) == nil)
        #expect(q.unresolvedCount == 3 && q.parkedCount == 3)
        #expect(resumed(q.resolveFirst(with: 1)?.resume) == "a=1")
        #expect(resumed(q.resolveFirst(with: 2)?.resume) == "b=2")
        #expect(resumed(q.resolveFirst(with: 3)?.resume) == "c=3")
        #expect(q.resolveFirst(with: 4) == nil)
        #expect(q.isEmpty && q.parkedCount == 0)
    }

    @Test func anOutcomeGivenBeforeTheTaskParksIsKeptForIt() {
        var q = Queue()
        let a = q.enqueue(), b = q.enqueue()
        #expect(resumed(q.park(b, "b")) == nil)
        // The head has not parked yet: its outcome is kept, the parked second waiter is not served out of turn.
        let first = q.resolveFirst(with: 7)
        #expect(first?.ticket == a && first?.resume == nil)
        #expect(q.unresolvedCount == 1, "\(q.unresolvedCount)")
        #expect(resumed(q.park(a, "a")) == "a=7")
        #expect(resumed(q.resolveFirst(with: 8)?.resume) == "b=8")
    }

    @Test func aCancellationBeforeParkingResumesTheWaiterAsItParks() {
        var q = Queue()
        let a = q.enqueue()
        #expect(resumed(q.resolve(a, with: -1)) == nil, "nothing parked to resume yet")
        #expect(!q.isWaiting(a) && q.isEmpty)
        #expect(resumed(q.park(a, "a")) == "a=-1")
    }

    @Test func theFirstOutcomeWinsAndLaterOnesChangeNothing() {
        var q = Queue()
        let a = q.enqueue()
        _ = q.park(a, "a")
        #expect(resumed(q.resolve(a, with: 1)) == "a=1")
        #expect(resumed(q.resolve(a, with: -1)) == nil, "a timeout after the answer")
        let b = q.enqueue()
        #expect(resumed(q.resolve(b, with: 2)) == nil)
        #expect(resumed(q.resolve(b, with: -1)) == nil, "a cancellation after the grant")
        #expect(resumed(q.park(b, "b")) == "b=2")
    }

    @Test func aResolvedEntryIsSkippedByTheLine() {
        var q = Queue()
        let a = q.enqueue(), b = q.enqueue(), c = q.enqueue()
        for (t, w) in [(a, "a"), (b, "b"), (c, "c")] { _ = q.park(t, w) }
        #expect(resumed(q.resolve(b, with: -1)) == "b=-1")
        #expect(resumed(q.resolveFirst(with: 1)?.resume) == "a=1")
        #expect(resumed(q.resolveFirst(with: 2)?.resume) == "c=2")
        #expect(q.resolveFirst(with: 3) == nil)
    }

    @Test func resolveAllResumesTheParkedAndKeepsTheOutcomeForTheRest() {
        var q = Queue()
        let a = q.enqueue(), b = q.enqueue(), c = q.enqueue()
        _ = q.park(a, "a")
        _ = q.park(c, "c")
        #expect(resumed(q.resolveAll(with: 0)) == ["a=0", "c=0"])
        #expect(q.isEmpty)
        #expect(resumed(q.park(b, "b")) == "b=0")
        // The queue goes on serving new tickets.
        let d = q.enqueue()
        _ = q.park(d, "d")
        #expect(resumed(q.resolveFirst(with: 5)?.resume) == "d=5")
    }

    @Test func resolveEachServesThoseThatFitInOrderAndLeavesTheRest() {
        var q = WaiterQueue<(name: String, size: Int), Int>()
        for (name, size) in [("big", 10), ("small", 2), ("medium", 5), ("tiny", 1)] { _ = q.park(q.enqueue(), (name, size)) }
        var room = 8
        let served = q.resolveEach(&room) { waiter, room in
            guard waiter.size <= room else { return nil }
            room -= waiter.size
            return waiter.size
        }
        #expect(served.map(\.waiter.name) == ["small", "medium", "tiny"])
        #expect(room == 0 && q.unresolvedCount == 1 && q.parkedCount == 1)
        #expect(q.resolveFirst(with: 10)?.resume?.waiter.name == "big")
    }

    /// Tickets resolved out of order (a client's answers by id) do not pile up in the line.
    @Test func manyOutOfOrderResolutionsKeepTheLineSmall() {
        var q = Queue()
        let first = q.enqueue()
        _ = q.park(first, "first")
        for i in 0..<10_000 {
            let t = q.enqueue()
            _ = q.park(t, "w\(i)")
            #expect(resumed(q.resolve(t, with: i)) == "w\(i)=\(i)")
        }
        #expect(q.unresolvedCount == 1 && q.lineLength <= 65, "\(q.lineLength) tickets in line for one waiter")
        #expect(resumed(q.resolveFirst(with: 1)?.resume) == "first=1")
        #expect(q.isEmpty)
    }
}
