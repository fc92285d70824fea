@testable import JSONRPC
import Testing

/// The admission rules without tasks: slots in order, memory with bounded overtaking, leaving frees a place.
@Suite(.timeLimit(.minutes(10)))
struct AdmissionQueueTests {
    @Test func slotsGoInArrivalOrderWithoutABudget() {
        var q = AdmissionQueue(slots: 1)
        #expect(q.arrive(1, bytes: 0) == [1])
        #expect(q.arrive(2, bytes: 0) == [])
        #expect(q.arrive(3, bytes: 0) == [])
        #expect(q.finish(1) == [2])
        #expect(q.finish(2) == [3])
    }

    @Test func aPlaceWaitingForASlotIsNeverPassed() {
        var q = AdmissionQueue(slots: 1, budgetBytes: 100)
        #expect(q.arrive(1, bytes: 10) == [1])
        #expect(q.arrive(2, bytes: 10) == [])  // waits for the slot
        #expect(q.arrive(3, bytes: 1) == [])   // fits too, but may not pass 2
        #expect(!q.waitsForMemory(2))
        #expect(q.finish(1) == [2])
    }

    @Test func aSmallJobPassesALargeOneThatDoesNotFitYet() {
        var q = AdmissionQueue(slots: 4, budgetBytes: 100)
        #expect(q.arrive(1, bytes: 60) == [1])
        #expect(q.arrive(2, bytes: 60) == [])  // 120 > 100
        #expect(q.waitsForMemory(2))
        #expect(q.waitingForMemoryCount == 1)
        #expect(q.arrive(3, bytes: 20) == [3])  // fits beside 1: goes ahead of 2
        #expect(q.reservedBytes == 80)
        #expect(q.finish(1) == [2])  // 20 + 60 fits now
        #expect(q.reservedBytes == 80)
    }

    @Test func theLargeJobStartsWhenRoomIsMade() {
        var q = AdmissionQueue(slots: 4, budgetBytes: 100)
        _ = q.arrive(1, bytes: 60)
        _ = q.arrive(2, bytes: 60)
        #expect(q.finish(1) == [2])
        #expect(q.reservedBytes == 60)
    }

    /// After `maxOvertakes` passes the line holds still for the large job: small ones wait behind it.
    @Test func aLargeJobIsNotStarvedByAStreamOfSmallOnes() {
        var q = AdmissionQueue(slots: 8, budgetBytes: 100, maxOvertakes: 2)
        _ = q.arrive(1, bytes: 50)
        #expect(q.arrive(2, bytes: 80) == [])     // waits for memory
        #expect(q.arrive(3, bytes: 10) == [3])    // pass 1
        #expect(q.arrive(4, bytes: 10) == [4])    // pass 2
        #expect(q.arrive(5, bytes: 10) == [])     // no third pass: behind the large job now
        #expect(q.finish(1) == [2])       // 20 + 80 fits: the large one starts, the small one still waits
        #expect(q.finish(3) == [5])       // then the small one, beside it
    }

    @Test func leavingTheLineFreesThePlaceBehind() {
        var q = AdmissionQueue(slots: 4, budgetBytes: 100, maxOvertakes: 0)
        _ = q.arrive(1, bytes: 60)
        _ = q.arrive(2, bytes: 60)
        #expect(q.arrive(3, bytes: 10) == [])  // no overtaking at all
        #expect(q.leave(2) == [3])
        #expect(q.waitingCount == 0)
    }

    @Test func onlyWhatCouldEverFitMayArrive() {
        let q = AdmissionQueue(slots: 1, budgetBytes: 100)
        #expect(q.canEverFit(100))
        #expect(!q.canEverFit(101))
        #expect(AdmissionQueue(slots: 1).canEverFit(.max))
    }

    /// A place whose estimate is being made waits, and may be passed like one waiting for memory; once it has been
    /// passed as often as allowed, the line waits for its estimate.
    @Test func aPlaceWithoutItsEstimateWaitsAndIsPassedAFewTimes() {
        var q = AdmissionQueue(slots: 4, budgetBytes: 100, maxOvertakes: 1)
        #expect(q.arrive(1, bytes: nil) == [])
        #expect(!q.waitsForMemory(1))
        #expect(q.arrive(2, bytes: 10) == [2])  // passes the pending place once
        #expect(q.arrive(3, bytes: 10) == [])   // no second pass
        #expect(q.estimate(1, bytes: 50) == [1, 3])
        #expect(q.reservedBytes == 70)
    }

    /// Without a budget, bytes are clamped so that no number of places overflows their sum.
    @Test func hugeEstimatesWithoutABudgetDoNotOverflow() {
        var q = AdmissionQueue(slots: 4)
        #expect(q.arrive(1, bytes: .max) == [1])
        #expect(q.arrive(2, bytes: .max) == [2])
        #expect(q.finish(1) == [])
        #expect(q.finish(2) == [])
        #expect(q.reservedBytes == 0)
    }
}
