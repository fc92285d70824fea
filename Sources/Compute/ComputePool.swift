import CSyscalls
import Foundation
import Synchronization
import Waiting

import Glibc

/// Dedicated threads for synchronous pixel work, awaited from async code.
///
/// Pixel loops block their thread for milliseconds to seconds. On the cooperative pool (one
/// thread per core) a few of them would leave no thread to wake anything else, so every other
/// task in the process (the protocol loop, cancellation, timers) would wait for them. Work
/// submitted here runs on the pool's own threads instead; the awaiting task is suspended, not
/// blocking. Cancelling the awaiting task raises the piece's ``CancellationFlag``, which its loops see through the
/// ``ComputePiece`` the body is handed (``ParallelLoop/isCancelled``).
///
/// Scheduling: each submission names the ``ComputeLease`` (its job) it belongs to, and a
/// free thread serves leases, not submissions, in the order that type describes: the lease with the
/// fewest threads running first, the earliest among equals, each lease's work in the order it came. Ordinary
/// work goes before the helpers of a piece spread over idle threads (a ``ComputePiece``'s ``ComputePiece/forEach(_:_:)``), and both before
/// work submitted under a ``Speculation``. The threads are the only ones pixel work runs on, so `threads` bounds
/// the CPU all jobs take together, helpers included.
///
/// Lifecycle: the owner starts the threads with ``start()`` (the worker's server does it, as a service of its
/// group, while the reader starts) and ends them with ``stop()``, after the work already queued; work submitted
/// before `start()` waits for the threads, after `stop()` it fails with `CancellationError`.
public final class ComputePool: Sendable {
    private typealias Work = @Sendable () -> Void

    /// One submission: its work, and how to answer it if it is cancelled before a thread takes it.
    private struct Piece {
        let flag: CancellationFlag
        let speculation: Speculation?
        /// A helper of a running piece's ``ComputePiece/forEach(_:_:)``: optional work, after ordinary work and before
        /// speculation (it shortens a job's critical path; a guess may not be needed at all).
        var isHelper = false
        let run: Work
        let abandon: Work

        /// 0 ordinary, 1 helper, 2 speculative (as long as its speculation is not promoted).
        var rank: Int {
            if isHelper { return 1 }
            return speculation.map { $0.isPromoted ? 0 : 2 } ?? 0
        }
    }

    /// One lease's queued work, and how many of the pool's threads run its work now.
    private struct LeaseQueue {
        /// In the order submitted; a handful of pieces at most, so taking one from the middle is cheap.
        var work: [Piece] = []
        var running = 0

        var hasWork: Bool { !work.isEmpty }

        /// The first piece of this rank (``Piece/rank``).
        func first(ofRank rank: Int) -> Int? {
            work.firstIndex { $0.rank == rank }
        }
    }

    private struct State {
        var leases: [ComputeLease: LeaseQueue] = [:]
        var started = false
        var stopped = false
        var busy = 0
        var peakBusy = 0

        mutating func push(_ piece: Piece, for lease: ComputeLease) {
            leases[lease, default: LeaseQueue()].work.append(piece)
        }

        /// Takes the queued piece with this flag out of the queue, if it is still there.
        mutating func remove(_ flag: CancellationFlag, of lease: ComputeLease) -> Piece? {
            guard let index = leases[lease]?.work.firstIndex(where: { $0.flag === flag }) else { return nil }
            let piece = leases[lease]!.work.remove(at: index)
            if leases[lease]!.running == 0 && !leases[lease]!.hasWork { leases[lease] = nil }
            return piece
        }

        /// The next piece of work to run and its lease: ordinary work first, from the lease with the fewest
        /// threads running, the earliest among equals; then helpers, then speculative work, chosen the same way
        /// (a handful of leases at most: linear scans).
        mutating func next() -> (ComputeLease, Work)? {
            var chosen: (lease: ComputeLease, running: Int, index: Int)?
            for rank in 0..<3 where chosen == nil {
                for (lease, queue) in leases {
                    guard let index = queue.first(ofRank: rank) else { continue }
                    if let c = chosen, (c.running, c.lease) <= (queue.running, lease) { continue }
                    chosen = (lease, queue.running, index)
                }
            }
            guard let (lease, _, index) = chosen else { return nil }
            busy += 1
            peakBusy = max(peakBusy, busy)
            leases[lease]!.running += 1
            return (lease, leases[lease]!.work.remove(at: index).run)
        }

        mutating func finished(_ lease: ComputeLease) {
            busy -= 1
            leases[lease]!.running -= 1
            if leases[lease]!.running == 0 && !leases[lease]!.hasWork { leases[lease] = nil }
        }
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    public let threadCount: Int

    /// - Parameter threads: how many pixel loops run at once (the worker's job limit).
    public init(threads: Int) {
        threadCount = max(1, threads)
    }

    /// What the threads are doing, for statistics and tests.
    public struct Activity: Sendable, Equatable {
        /// Threads running a piece of work now.
        public var busy: Int
        /// The most threads ever busy at once.
        public var peakBusy: Int
        /// Pieces of work waiting for a thread.
        public var queued: Int
    }

    public var activity: Activity {
        state.withLock { s in
            Activity(busy: s.busy, peakBusy: s.peakBusy,
                     queued: s.leases.values.reduce(0) { $0 + $1.work.count })
        }
    }

    /// Starts the threads (once).
    public func start() {
        let first = state.withLock { s -> Bool in
            defer { s.started = true }
            return !s.started && !s.stopped
        }
        guard first else { return }
        for i in 0..<threadCount {
            let thread = Thread { [self] in
                // Named by the thread itself: Foundation's `Thread.name` setter is a no-op until `start()` has
                // stored the handle, which this thread can outrun.
                _ = cs_name_this_thread("pw-compute-\(i)")
                #if os(Linux)
                // Pixel loops yield the CPU to everything else in the process: on Linux the nice
                // value is per thread, so the protocol threads keep answering promptly while these
                // threads keep both cores busy.
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
                #endif
                self.serve()
            }
            // Deep recursion is not used, but libjpeg/libpng and large frames like room.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Runs `body` on a pool thread as work of `lease` and returns its result. If the calling task is cancelled,
    /// the piece the body is handed becomes cancelled (``ComputePiece/isCancelled``; the body does not start if it
    /// has not yet). Whoever owns the pool (the
    /// server, as a service) decides when its threads live: work submitted before ``start()`` waits for them; after
    /// ``stop()`` it is refused with `CancellationError`.
    /// - Parameters:
    ///   - lease: the job the work belongs to (``ComputeLease/unleased`` for work outside any job: tests,
    ///     benchmarks, in-process use); a ``ComputeJob`` passes its own.
    ///   - speculation: the guess the work belongs to, if it is one: it then runs only on a thread nothing else
    ///     wants, until promoted.
    ///   - body: the work, handed the piece it runs as (``ComputePiece``): the loop its parts spread over.
    public func run<T: Sendable>(lease: ComputeLease, speculation: Speculation? = nil,
                                 _ body: @escaping @Sendable (ComputePiece) throws -> T) async throws -> T {
        let flag = CancellationFlag()
        let call = Call<T>()
        let loop = ComputePiece(pool: self, lease: lease, flag: flag)
        let piece = Piece(flag: flag, speculation: speculation, run: {
            call.resolve(flag.isCancelled ? .failure(CancellationError()) : Result { try body(loop) })
        }, abandon: {
            call.resolve(.failure(CancellationError()))
        })
        // Queued before the caller parks (the call's queue keeps an outcome that comes first), under the lock with
        // `onCancel`'s removal: a piece is either queued before a cancel (and then taken out by it) or refused
        // after it, never left waiting for a thread once cancelled.
        let accepted = state.withLock { s -> Bool in
            guard !s.stopped && !flag.isCancelled else { return false }
            s.push(piece, for: lease)
            return true
        }
        if accepted {
            available.signal()
        } else {
            call.resolve(.failure(CancellationError()))
        }
        return try await call.wait(onCancel: { [self] in
            flag.cancel()
            // A piece still queued answers at once: speculative work may otherwise wait long for a thread.
            state.withLock { $0.remove(flag, of: lease) }?.abandon()
        })
    }

    /// ``run(lease:speculation:_:)`` for work that spreads over no other thread.
    public func run<T: Sendable>(lease: ComputeLease, speculation: Speculation? = nil,
                                 _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await run(lease: lease, speculation: speculation) { (_: ComputePiece) in try body() }
    }

    /// One submission's caller, parked in a waiter queue of one ticket (the Waiting module's story for order and
    /// cancellation, as everywhere a task waits): resolved once by the piece that ran or was abandoned, or by the
    /// refusal; later outcomes are ignored.
    private final class Call<T: Sendable>: Sendable {
        private let waiter: Mutex<ContinuationQueue<T>>
        private let ticket: ContinuationQueue<T>.Ticket

        init() {
            var queue = ContinuationQueue<T>()
            ticket = queue.enqueue()
            waiter = Mutex(queue)
        }

        func resolve(_ outcome: Result<T, any Error>) {
            waiter.withLock { $0.resolve(ticket, with: outcome) }.perform()
        }

        func wait(onCancel: @escaping @Sendable () -> Void) async throws -> T {
            try await Parking.wait({ c in waiter.withLock { $0.park(ticket, c) }.perform() }, onCancel: onCancel)
        }
    }

    /// Lets the threads end once the queued work is done; later work is refused. A pool stopped before it started
    /// refuses the work waiting for its threads too.
    public func stop() {
        let (wake, refused) = state.withLock { s -> (Bool, [Piece]) in
            defer { s.stopped = true }
            guard !s.started && !s.stopped else { return (s.started && !s.stopped, []) }
            defer { s.leases = [:] }
            return (false, s.leases.values.flatMap(\.work))
        }
        for piece in refused { piece.abandon() }
        guard wake else { return }
        for _ in 0..<threadCount { available.signal() }
    }

    private func serve() {
        while true {
            available.wait()
            // A signal is either work or, after stop(), a wake-up to leave once the queue is empty.
            let next = state.withLock { s -> (ComputeLease, Work)?? in
                if let next = s.next() { return .some(next) }
                return s.stopped ? .none : .some(nil)
            }
            switch next {
            case .none: return
            case .some((let lease, let work)?):
                work()
                state.withLock { $0.finished(lease) }
            case .some(nil): continue
            }
        }
    }

    // MARK: - One piece over several threads

    /// ``ComputePiece/forEach(_:_:)``: calls `body(thread, index)` for every index in `0..<count`, on the calling
    /// thread (thread 0, running a piece of `lease`) and on up to `width - 1` of this pool's threads that would
    /// otherwise be idle (threads 1, 2, ...: each number is used by one thread at a time, so it can pick that
    /// thread's scratch); returns when every index has run. The helpers are work of `lease`, after ordinary work;
    /// `body` checks the cancellation of the piece it closes over.
    /// - Throws: the first error `body` threw (indices not yet taken are then skipped), once every thread has left
    ///   `body`.
    func forEach(_ count: Int, width: Int, lease: ComputeLease,
                 _ body: @escaping @Sendable (_ thread: Int, _ index: Int) throws -> Void) throws {
        guard count > 0 else { return }
        guard width > 1, count > 1 else {
            for i in 0..<count { try body(0, i) }
            return
        }
        let region = ParallelRegion(count: count, body: body)
        let helpers = (0..<min(width - 1, count - 1)).map { _ in
            Piece(flag: CancellationFlag(), speculation: nil, isHelper: true, run: { region.help() }, abandon: {})
        }
        state.withLock { s in
            for piece in helpers { s.push(piece, for: lease) }
        }
        for _ in helpers { available.signal() }
        region.run(thread: 0)
        // Helpers no thread took are dropped; the caller then waits only for those already running.
        state.withLock { s in
            for piece in helpers { _ = s.remove(piece.flag, of: lease) }
        }
        try region.finish()
    }
}

extension ComputePool {
    /// ``ComputePiece/pipelined(_:process:)``: for the piece of `lease` running on the calling thread.
    func pipeline<Item: Sendable>(_ produce: (_ handOff: (Item) -> Void) throws -> Void,
                                  process: @escaping @Sendable (Item) -> Void, lease: ComputeLease) throws {
        let line = HandOffLine(process: process)
        /// No helper joins any more; those no thread has taken leave the queue; then the caller finishes.
        func end(processingRest: Bool) {
            let submitted = line.close()
            let removed = state.withLock { s in submitted.filter { s.remove($0, of: lease) != nil }.count }
            for _ in 0..<removed { line.removed() }
            line.finish(processingRest: processingRest)
        }
        do {
            try produce { item in
                guard let helper = line.add(item) else { return }
                state.withLock { $0.push(Piece(flag: helper, speculation: nil, isHelper: true, run: { line.help() }, abandon: {}),
                                         for: lease) }
                available.signal()
            }
        } catch {
            end(processingRest: false)
            throw error
        }
        end(processingRest: true)
    }
}
