import Synchronization
import Waiting

/// Blocks of memory lent to forward passes for their activations and kept between them, so the passes of one
/// job (a batch's photos, a sticker's two passes) reuse memory that is already mapped instead of faulting in and
/// zeroing a fresh block each time (a 320x320 pass spent ~10% of its time there).
///
/// The owner decides how long blocks are kept: ``release()`` hands back those no pass is using (the worker does
/// once it has been idle for a while). Without a budget it keeps no more blocks than were lent at once: a pass
/// that finds no free block large enough drops the largest free one before allocating.
///
/// With a budget, ``withBlock(for:_:)`` bounds the blocks held, lent and free, by it: a pass whose block does not
/// fit waits, suspended (its thread free for other work), until a pass gives one back. Blocks keep their sizes
/// while passes run: a pass waits for a block of its size that is lent rather than dropping a free block of
/// another size to make room (and faulting both in again), and drops free blocks only when no block of its size
/// exists. A pass that finds a free block of its size takes it at once; the others queue in the order they came.
/// A pass is never refused: with nothing lent, it gets its block even over the budget.
public final class ActivationMemory: Sendable {
    /// A pass waiting for a block of `floats`.
    private struct Waiter: ResumableWaiter {
        let floats: Int
        let continuation: CheckedContinuation<Block, any Error>
        func deliver(_ outcome: sending Result<Block, any Error>) { continuation.resume(with: outcome) }
    }

    /// The budget, once asked for.
    private enum Budget {
        case unknown
        case unlimited
        case floats(Int)
    }

    /// The blocks held, lent and free.
    private struct Blocks {
        var free: [Block] = []
        var lent: [Block] = []
        var budget = Budget.unknown
        /// The most floats held at once.
        var peakHeld = 0

        var lentFloats: Int { lent.reduce(0) { $0 + $1.floats } }
        var heldFloats: Int { free.reduce(0) { $0 + $1.floats } + lentFloats }
        var hasBudget: Bool { if case .floats = budget { true } else { false } }
    }

    private struct State {
        var blocks = Blocks()
        /// Passes waiting for room, in the order they came.
        var waiters = WaiterQueue<Waiter, Result<Block, any Error>>()
    }

    private let state = Mutex(State())
    private let budgetBytes: @Sendable () -> Int?

    /// - Parameter budget: the bytes the blocks may hold at once, asked for on the first ``withBlock(for:_:)`` (the
    ///   worker's depends on networks loaded on first use); nil for no limit. A pass is lent its block before it
    ///   waits for a thread, so memory without a budget that many passes share holds a block for each pass queued.
    public init(budget: @escaping @Sendable () -> Int? = { nil }) {
        budgetBytes = budget
    }

    deinit {
        state.withLock { state in for block in state.blocks.free { block.deallocate() } }
    }

    /// Runs `body` with a block for one pass of `network` (``Network/forward(_:in:parallel:)``),
    /// first waiting while the block would take what is held over the budget; gives the block back when `body`
    /// returns or throws.
    /// - Throws: `CancellationError` when the task is cancelled while it waits; what `body` throws.
    public func withBlock<T>(for network: Network, _ body: (ActivationBlock) async throws -> T) async throws -> T {
        let block = try await lend(floats: network.plan.floats)
        defer { give(block) }
        return try await body(ActivationBlock(block: block))
    }

    /// A block of at least `floats` within the budget, once there is room.
    func lend(floats: Int) async throws -> Block {
        if state.withLock({ if case .unknown = $0.blocks.budget { true } else { false } }) {
            let bytes = budgetBytes()
            state.withLock {
                if case .unknown = $0.blocks.budget {
                    $0.blocks.budget = bytes.map { .floats($0 / MemoryLayout<Float>.stride) } ?? .unlimited
                }
            }
        }
        let ticket = state.withLock { $0.waiters.enqueue() }
        return try await Parking.wait({ continuation in
            state.withLock { state in
                // A free block of its size it takes at once: no one waiting could use it (each give serves them
                // first). Anything else only if no one waits: they may be waiting for room it would take.
                // (Not if a cancellation came first: the ticket then has its outcome.)
                if state.waiters.isWaiting(ticket),
                   let block = Self.freeBlock(fitting: floats, in: &state.blocks)
                    ?? (state.waiters.parkedCount == 0 ? Self.grant(floats, in: &state.blocks) : nil) {
                    _ = state.waiters.resolve(ticket, with: .success(block))
                }
                return state.waiters.park(ticket, Waiter(floats: floats, continuation: continuation))
            }.perform()
        }, onCancel: {
            // Those behind a cancelled pass may fit now.
            state.withLock { state in
                [state.waiters.resolve(ticket, with: .failure(CancellationError()))].compactMap { $0 }
                    + Self.serveWaiters(in: &state)
            }.perform()
        })
    }

    /// Lends blocks to those waiting that fit now, in the order they came; they are resumed outside the lock.
    private static func serveWaiters(in state: inout State) -> [WaiterQueue<Waiter, Result<Block, any Error>>.Resume] {
        state.waiters.resolveEach(&state.blocks) { waiter, blocks in grant(waiter.floats, in: &blocks).map { .success($0) } }
    }

    /// A block of at least `floats` lent now, without waiting (a pass outside any budget: tests, benchmarks).
    func take(floats: Int) -> Block {
        state.withLock { Self.lendWithoutBudget(floats, in: &$0.blocks) }
    }

    /// Takes back a block lent by ``take(floats:)`` or `lend`, and lends blocks to those waiting that now fit, in
    /// the order they came.
    func give(_ block: Block) {
        state.withLock { state in
            if let i = state.blocks.lent.firstIndex(where: { $0.base == block.base }) { state.blocks.lent.remove(at: i) }
            state.blocks.free.append(block)
            return Self.serveWaiters(in: &state)
        }.perform()
    }

    /// A block lent now if the budget allows (see the type's description), else nil.
    private static func grant(_ floats: Int, in state: inout Blocks) -> Block? {
        guard case .floats(let budget) = state.budget else { return lendWithoutBudget(floats, in: &state) }
        if let block = freeBlock(fitting: floats, in: &state) { return block }
        let fits = { (block: Block) in fitting(floats, block) }
        let room = state.heldFloats + floats <= budget
        guard room || state.lent.isEmpty || (!state.lent.contains(where: fits) && state.lentFloats + floats <= budget) else {
            return nil
        }
        // Free blocks of other sizes go, largest first, until the new one fits (or none are left).
        state.free.sort { $0.floats < $1.floats }
        while !state.free.isEmpty && state.heldFloats + floats > budget { state.free.removeLast().deallocate() }
        let block = Block(floats: floats)
        state.lent.append(block)
        state.peakHeld = max(state.peakHeld, state.heldFloats)
        return block
    }

    /// Whether `block` serves a pass of `floats` without holding much more than it needs (at most a quarter more).
    private static func fitting(_ floats: Int, _ block: Block) -> Bool {
        block.floats >= floats && block.floats <= floats + floats / 4
    }

    /// A free block of a pass's size lent, if there is one (with a budget).
    private static func freeBlock(fitting floats: Int, in state: inout Blocks) -> Block? {
        guard state.hasBudget, let i = state.free.firstIndex(where: { fitting(floats, $0) }) else {
            return nil
        }
        state.lent.append(state.free.remove(at: i))
        return state.lent.last
    }

    /// The smallest free block of at least `floats`; otherwise the largest free one is dropped (so no more blocks
    /// are kept than passes ran at once) and a new one allocated.
    private static func lendWithoutBudget(_ floats: Int, in state: inout Blocks) -> Block {
        let block: Block
        if let i = state.free.indices.filter({ state.free[$0].floats >= floats })
            .min(by: { state.free[$0].floats < state.free[$1].floats }) {
            block = state.free.remove(at: i)
        } else {
            if let largest = state.free.indices.max(by: { state.free[$0].floats < state.free[$1].floats }) {
                state.free.remove(at: largest).deallocate()
            }
            block = Block(floats: floats)
        }
        state.lent.append(block)
        state.peakHeld = max(state.peakHeld, state.heldFloats)
        return block
    }

    /// Hands the blocks no pass is using back to the system.
    public func release() {
        let blocks = state.withLock { state in
            defer { state.blocks.free.removeAll() }
            return state.blocks.free
        }
        for block in blocks { block.deallocate() }
    }

    /// The bytes held for passes not running now.
    public var idleBytes: Int {
        state.withLock { $0.blocks.free.reduce(0) { $0 + $1.floats } } * MemoryLayout<Float>.stride
    }

    /// The bytes held, lent and free.
    public var heldBytes: Int { state.withLock { $0.blocks.heldFloats } * MemoryLayout<Float>.stride }

    /// The most bytes held at once since the memory was made.
    public var peakHeldBytes: Int { state.withLock { $0.blocks.peakHeld } * MemoryLayout<Float>.stride }

    /// Passes waiting for a block.
    var waitingCount: Int { state.withLock { $0.waiters.parkedCount } }

    /// Storage for one pass's activations.
    struct Block: Sendable {
        // Sendable: a block is used by one pass at a time (lent by `take` or `lend`, returned by `give` after the
        // pass), and the lists that hand it over are behind the mutex.
        nonisolated(unsafe) let base: UnsafeMutablePointer<Float>
        let floats: Int

        init(floats: Int) {
            base = .allocate(capacity: floats)
            self.floats = floats
        }

        func deallocate() { base.deallocate() }
    }
}

/// A block lent by ``ActivationMemory/withBlock(for:_:)`` for one forward pass, valid inside its body.
public struct ActivationBlock: Sendable {
    let block: ActivationMemory.Block
}
