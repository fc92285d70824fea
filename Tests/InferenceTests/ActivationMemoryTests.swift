@testable import Inference
import Testing

/// Blocks are lent again rather than allocated again, no more are kept than were lent at once, and release
/// hands back the ones not lent out.
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
        let alone = try (0..<4).map { try network.forward(input($0)) }
        let shared = try await withThrowingTaskGroup(of: (Int, Tensor).self) { group in
            for i in 0..<4 { group.addTask { (i, try network.forward(input(i), memory: memory)) } }
            var maps = [Tensor?](repeating: nil, count: 4)
            for try await (i, map) in group { maps[i] = map }
            return maps
        }
        for i in 0..<4 { #expect(shared[i] == alone[i], "map \(i)") }
        #expect(memory.idleBytes > 0 && memory.idleBytes <= 4 * network.activationBytes, "\(memory.idleBytes)")
    }
}
