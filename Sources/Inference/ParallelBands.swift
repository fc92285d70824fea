import Compute

/// One forward pass's use of a ``ParallelLoop``: each participating thread's scratch, kept across the pass's
/// layers.
final class ParallelBands: @unchecked Sendable {
    // Safe to share: scratch `t` and `fresh[t]` are used only by the thread running as number `t` inside one
    // `run` (the loop gives each number to one thread at a time), and outside `run` only by the caller, to
    // which `run` returns after every thread has left the loop. Raw memory, not arrays in a property: threads
    // writing different elements of one array would be overlapping accesses to the property.
    private let scratch: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let capacity: UnsafeMutablePointer<Int>
    private let fresh: UnsafeMutablePointer<Bool>
    /// Threads that may take part (the caller and the helpers).
    let threads: Int
    let loop: any ParallelLoop

    init(_ loop: any ParallelLoop) {
        self.loop = loop
        threads = max(1, loop.width)
        scratch = .allocate(capacity: threads)
        scratch.initialize(repeating: nil, count: threads)
        capacity = .allocate(capacity: threads)
        capacity.initialize(repeating: 0, count: threads)
        fresh = .allocate(capacity: threads)
        fresh.initialize(repeating: true, count: threads)
    }

    deinit {
        for t in 0..<threads { scratch[t]?.deallocate() }
        scratch.deallocate()
        capacity.deallocate()
        fresh.deallocate()
    }

    /// Runs `body(scratch, isFresh, index, checkpoint)` for every index in `0..<count`, with `floatsPerThread`
    /// floats of scratch per thread (`isFresh`: the first use of that scratch in this run, to be prepared).
    /// Cancellation is the loop's (``ParallelLoop/checkCancellation()``, on whichever thread runs the index),
    /// checked before each index a thread takes and wherever `body` calls `checkpoint` (an index that is several bands
    /// long calls it between them): either throws `CancellationError` once the pass is cancelled.
    func run(_ count: Int, floatsPerThread: Int,
             _ body: (UnsafeMutablePointer<Float>, Bool, Int, _ checkpoint: () throws -> Void) throws -> Void) throws {
        for t in 0..<threads {
            if capacity[t] < floatsPerThread {
                scratch[t]?.deallocate()
                scratch[t] = .allocate(capacity: floatsPerThread)
                capacity[t] = floatsPerThread
            }
            fresh[t] = true
        }
        let scratch = Unchecked(scratch), fresh = Unchecked(fresh)
        try withoutActuallyEscaping(body) { body in
            // Unchecked: `body` is used only until `forEach` returns, which it does after every call; it writes what
            // its index owns (its band's output rows, or its chunk's: a Winograd convolution writing over its input
            // writes each row from one chunk only).
            let shared = Unchecked(body)
            let loop = loop
            try loop.forEach(count) { thread, index in
                let checkpoint: () throws -> Void = { try loop.checkCancellation() }
                try checkpoint()
                try shared.value(scratch.value[thread]!, fresh.value[thread], index, checkpoint)
                fresh.value[thread] = false
            }
        }
    }
}

/// A value shared across threads on a guarantee the compiler cannot see; each use says why it holds.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
