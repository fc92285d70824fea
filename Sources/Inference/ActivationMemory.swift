import Synchronization

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
    private struct Waiter {
        let id: Int
        let floats: Int
        let continuation: CheckedContinuation<Block, any Error>
    }

    private struct State {
        var free: [Block] = []
        var lent: [Block] = []
        var waiters: [Waiter] = []
        var nextWaiter = 0
        /// The budget in floats once asked for: nil while not asked, `.some(nil)` for none.
        var budget: Int?? = nil
        /// The most floats held at once.
        var peakHeld = 0

        var lentFloats: Int { lent.reduce(0) { $0 + $1.floats } }
        var heldFloats: Int { free.reduce(0) { $0 + $1.floats } + lentFloats }
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
        state.withLock { state in for block in state.free { block.deallocate() } }
    }

    /// Runs `body` with a block for one pass of `network` (``Network/forward(_:in:parallel:isCancelled:)``),
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
        if state.withLock({ $0.budget == nil }) {
            let bytes = budgetBytes()
            state.withLock { if $0.budget == nil { $0.budget = .some(bytes.map { $0 / MemoryLayout<Float>.stride }) } }
        }
        let id = state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Block, any Error>) in
                let outcome = state.withLock { state -> Result<Block, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    // A free block of its size it takes at once: no one waiting could use it (each give serves
                    // them first). Anything else only if no one waits: they may be waiting for room it would take.
                    if let block = Self.freeBlock(fitting: floats, in: &state) { return .success(block) }
                    if state.waiters.isEmpty, let block = Self.grant(floats, in: &state) { return .success(block) }
                    state.waiters.append(Waiter(id: id, floats: floats, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            // Those behind a cancelled pass may fit now.
            let (waiter, granted) = state.withLock { state -> (Waiter?, [Grant]) in
                guard let i = state.waiters.firstIndex(where: { $0.id == id }) else { return (nil, []) }
                return (state.waiters.remove(at: i), Self.serveWaiters(in: &state))
            }
            waiter?.continuation.resume(throwing: CancellationError())
            for grant in granted { grant.continuation.resume(returning: grant.block) }
        }
    }

    /// A block lent to a pass that waited for it.
    private typealias Grant = (continuation: CheckedContinuation<Block, any Error>, block: Block)

    /// Lends blocks to those waiting that fit now, in the order they came; they are resumed outside the lock.
    private static func serveWaiters(in state: inout State) -> [Grant] {
        var granted: [Grant] = []
        var i = 0
        while i < state.waiters.count {
            if let block = grant(state.waiters[i].floats, in: &state) {
                granted.append((state.waiters.remove(at: i).continuation, block))
            } else {
                i += 1
            }
        }
        return granted
    }

    /// A block of at least `floats` lent now, without waiting (a pass outside any budget: tests, benchmarks).
    func take(floats: Int) -> Block {
        state.withLock { Self.lendWithoutBudget(floats, in: &$0) }
    }

    /// Takes back a block lent by ``take(floats:)`` or `lend`, and lends blocks to those waiting that now fit, in
    /// the order they came.
    func give(_ block: Block) {
        let granted = state.withLock { state -> [Grant] in
            if let i = state.lent.firstIndex(where: { $0.base == block.base }) { state.lent.remove(at: i) }
            state.free.append(block)
            return Self.serveWaiters(in: &state)
        }
        for grant in granted { grant.continuation.resume(returning: grant.block) }
    }

    /// A block lent now if the budget allows (see the type's description), else nil.
    private static func grant(_ floats: Int, in state: inout State) -> Block? {
        guard case .some(.some(let budget)) = state.budget else { return lendWithoutBudget(floats, in: &state) }
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
    private static func freeBlock(fitting floats: Int, in state: inout State) -> Block? {
        guard case .some(.some) = state.budget, let i = state.free.firstIndex(where: { fitting(floats, $0) }) else {
            return nil
        }
        state.lent.append(state.free.remove(at: i))
        return state.lent.last
    }

    /// The smallest free block of at least `floats`; otherwise the largest free one is dropped (so no more blocks
    /// are kept than passes ran at once) and a new one allocated.
    private static func lendWithoutBudget(_ floats: Int, in state: inout State) -> Block {
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
            defer { state.free.removeAll() }
            return state.free
        }
        for block in blocks { block.deallocate() }
    }

    /// The bytes held for passes not running now.
    public var idleBytes: Int {
        state.withLock { $0.free.reduce(0) { $0 + $1.floats } } * MemoryLayout<Float>.stride
    }

    /// The bytes held, lent and free.
    public var heldBytes: Int { state.withLock { $0.heldFloats } * MemoryLayout<Float>.stride }

    /// The most bytes held at once since the memory was made.
    public var peakHeldBytes: Int { state.withLock { $0.peakHeld } * MemoryLayout<Float>.stride }

    /// Passes waiting for a block.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

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
