import Synchronization

/// Blocks of memory lent to forward passes for their activations and kept between them, so the passes of one
/// job (a batch's photos, a sticker's two passes) reuse memory that is already mapped instead of faulting in and
/// zeroing a fresh block each time (a 320x320 pass spent ~10% of its time there).
///
/// The owner decides how long blocks are kept: ``release()`` hands back those no pass is using (the worker does
/// once it has been idle for a while). It keeps no more blocks than passes ran at once: a pass that finds no free
/// block large enough drops the largest free one before allocating.
public final class ActivationMemory: Sendable {
    private let free = Mutex<[Block]>([])

    public init() {}

    deinit {
        free.withLock { blocks in for block in blocks { block.deallocate() } }
    }

    /// A block of at least `floats`, lent until ``give(_:)``.
    func take(floats: Int) -> Block {
        let taken = free.withLock { blocks -> Block? in
            if let i = blocks.indices.filter({ blocks[$0].floats >= floats }).min(by: { blocks[$0].floats < blocks[$1].floats }) {
                return blocks.remove(at: i)
            }
            if let largest = blocks.indices.max(by: { blocks[$0].floats < blocks[$1].floats }) {
                blocks.remove(at: largest).deallocate()
            }
            return nil
        }
        return taken ?? Block(floats: floats)
    }

    /// Takes back a block lent by ``take(floats:)``.
    func give(_ block: Block) {
        free.withLock { $0.append(block) }
    }

    /// Hands the blocks no pass is using back to the system.
    public func release() {
        let blocks = free.withLock { blocks in
            defer { blocks.removeAll() }
            return blocks
        }
        for block in blocks { block.deallocate() }
    }

    /// The bytes held for passes not running now.
    public var idleBytes: Int {
        free.withLock { $0.reduce(0) { $0 + $1.floats } } * MemoryLayout<Float>.stride
    }

    /// Storage for one pass's activations.
    struct Block: Sendable {
        // Sendable: a block is used by one pass at a time (lent by `take`, returned by `give` after the pass), and
        // the free list that hands it over is behind the mutex.
        nonisolated(unsafe) let base: UnsafeMutablePointer<Float>
        let floats: Int

        init(floats: Int) {
            base = .allocate(capacity: floats)
            self.floats = floats
        }

        func deallocate() { base.deallocate() }
    }
}
