import Compute
import Deadlines
@testable import Inference
import Testing

/// Blocks are lent again rather than allocated again, no more are kept than were lent at once, and release
/// hands back the ones not lent out; with a budget, passes wait for room, keep their blocks' sizes, and can be
/// cancelled while they wait.
@Suite(.timeLimit(.minutes(10)))
struct ActivationMemoryTests {
    @Test func aReturnedBlockIsLentAgain() {
        let memory = ActivationMemory()
        let first = memory.take(floats: 1000)
        memory.give(first)
        let second = memory.take(floats: 800)
        #expect(second.base == first.base, "a block large enough is reused")
        memory.give(second)
        #expect(memory.idleBytes == 4000, "\(memory.idleBytes)")
    }

    @Test func noMoreBlocksAreKeptThanWereLentAtOnce() {
        let memory = ActivationMemory()
        let a = memory.take(floats: 1000), b = memory.take(floats: 500)
        memory.give(a)
        memory.give(b)
        // Two at once, then one larger than both: the larger free one goes, the small one stays.
        let c = memory.take(floats: 2000)
        #expect(c.floats == 2000)
        #expect(memory.idleBytes == 500 * 4, "\(memory.idleBytes)")
        memory.give(c)
        memory.release()
        #expect(memory.idleBytes == 0, "\(memory.idleBytes)")
    }

    /// Passes sharing one memory, at once on two threads, give what passes of their own give.
    @Test func passesSharingMemoryGiveTheSameMaps() async throws {
        let network = try Network.u2netp.get().resized(toHeight: 96, width: 96)
        let memory = ActivationMemory()
        func input(_ seed: Int) -> Tensor {
            Tensor(channels: 3, height: 96, width: 96, data: (0..<(3 * 96 * 96)).map { Float(($0 * 7919 + seed) % 255) / 64 - 2 })
        }
        let alone = try (0..<4).map { try network.forward(input($0), parallel: InTurnLoop()) }
        let shared = try await withThrowingTaskGroup(of: (Int, Tensor).self) { group in
            for i in 0..<4 { group.addTask { (i, try network.forward(input(i), parallel: InTurnLoop(), memory: memory)) } }
            var maps = [Tensor?](repeating: nil, count: 4)
            for try await (i, map) in group { maps[i] = map }
            return maps
        }
        for i in 0..<4 { #expect(shared[i] == alone[i], "map \(i)") }
        #expect(memory.idleBytes > 0 && memory.idleBytes <= 4 * network.activationBytes, "\(memory.idleBytes)")
    }

    /// Until a pass is waiting (its task has reached the memory's queue).
    private func untilWaiting(_ memory: ActivationMemory, _ count: Int) async throws {
        try await Deadline.until("\(count) passes waiting, \(memory.waitingCount) so far") { memory.waitingCount >= count }
    }

    @Test func aPassWaitsForItsSizeWithinTheBudget() async throws {
        let memory = ActivationMemory(budget: { 1500 * 4 })
        let big = try await memory.lend(floats: 1000), small = try await memory.lend(floats: 500)
        let second = Task { try await memory.lend(floats: 1000) }
        try await untilWaiting(memory, 1)
        // The small block back: room for nothing larger, and a block of the waiting size is lent: it still waits.
        memory.give(small)
        #expect(memory.waitingCount == 1 && memory.heldBytes == 1500 * 4, "\(memory.waitingCount) waiting, \(memory.heldBytes) bytes held")
        // A pass of the free block's size takes it at once, ahead of the one waiting for the other size.
        let third = Task { try await memory.lend(floats: 500) }
        try await Deadline.until("the third pass waiting or served") { memory.waitingCount >= 2 || memory.idleBytes == 0 }
        #expect(memory.waitingCount == 1 && memory.idleBytes == 0, "\(memory.waitingCount) waiting, \(memory.idleBytes) bytes idle")
        memory.give(big)
        let reused = try await Deadline.value(of: second, "the second lend (1000 floats)")
        #expect(reused.base == big.base && memory.heldBytes == 1500 * 4, "\(memory.heldBytes) bytes held")
        memory.give(reused)
        memory.give(try await Deadline.value(of: third, "the third lend (500 floats)"))
    }

    @Test func aBlockOfANewSizeTakesTheRoomOfFreeOnes() async throws {
        let memory = ActivationMemory(budget: { 1500 * 4 })
        let a = try await memory.lend(floats: 500), b = try await memory.lend(floats: 500)
        let large = Task { try await memory.lend(floats: 1000) }
        try await untilWaiting(memory, 1)
        // No block of 1000 exists: once one 500 is back, it is dropped for the new size.
        memory.give(a)
        let got = try await Deadline.value(of: large, "the large lend (1000 floats)")
        #expect(got.floats == 1000 && memory.heldBytes == 1500 * 4 && memory.idleBytes == 0,
                "\(got.floats) floats, \(memory.heldBytes) held, \(memory.idleBytes) idle")
        memory.give(b)
        memory.give(got)
    }

    @Test func aPassAloneIsNeverRefused() async throws {
        let memory = ActivationMemory(budget: { 100 * 4 })
        let block = try await memory.lend(floats: 1000)
        #expect(block.floats == 1000)
        memory.give(block)
    }

    @Test func aWaitingPassCanBeCancelled() async throws {
        let memory = ActivationMemory(budget: { 1000 * 4 })
        let held = try await memory.lend(floats: 1000)
        let waiting = Task { try await memory.lend(floats: 1000) }
        try await untilWaiting(memory, 1)
        waiting.cancel()
        let outcome = await waiting.result
        #expect(memory.waitingCount == 0, "\(memory.waitingCount) still waiting")
        switch outcome {
        case .failure(let error): #expect(error is CancellationError, "\(error)")
        case .success(let block): Issue.record("a cancelled wait got a block of \(block.floats) floats")
        }
        memory.give(held)
        #expect(memory.heldBytes == 1000 * 4, "\(memory.heldBytes)")
    }

    /// A pass that fits queues behind one that waits, and gets its block when that one is cancelled.
    @Test func aCancelledWaitLetsThoseBehindIn() async throws {
        let memory = ActivationMemory(budget: { 1500 * 4 })
        let held = try await memory.lend(floats: 1000)
        let first = Task { try await memory.lend(floats: 1000) }
        try await untilWaiting(memory, 1)
        let behind = Task { try await memory.lend(floats: 500) }
        try await untilWaiting(memory, 2)
        first.cancel()
        _ = await first.result
        let stillWaiting = memory.waitingCount
        memory.give(held)  // lets `behind` in in any case, so a failure does not hang the test
        let block = try await Deadline.value(of: behind, "the lend behind the first (500 floats)")
        #expect(stillWaiting == 0 && block.floats == 500, "\(stillWaiting) waiting after the cancel; \(block.floats) floats")
        memory.give(block)
    }

    /// Two passes of one network at once on a budget of one block: the second runs after the first, in the same
    /// block, and both give the map a pass alone gives.
    @Test func passesOverTheBudgetRunInTurn() async throws {
        let network = try Network.u2netp.get().resized(toHeight: 64, width: 64)
        let memory = ActivationMemory(budget: { network.activationBytes })
        let input = Tensor(channels: 3, height: 64, width: 64, data: (0..<(3 * 64 * 64)).map { Float($0 % 97) / 32 - 1.5 })
        let alone = try network.forward(input, parallel: InTurnLoop())
        let maps = try await withThrowingTaskGroup(of: Tensor.self) { group in
            for _ in 0..<2 { group.addTask { try await memory.withBlock(for: network) { try network.forward(input, in: $0, parallel: InTurnLoop()) } } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(maps.count == 2 && maps.allSatisfy { $0 == alone })
        #expect(memory.heldBytes == network.activationBytes, "\(memory.heldBytes) held for one block of \(network.activationBytes)")
    }
}
