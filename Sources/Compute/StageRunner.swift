/// Where a pipeline's stages run. A pipeline (the sticker's: ``StickerExtractor/extract(from:options:subjectMap:on:)``)
/// declares its stages and which of them are independent once, and a runner decides how they run: in the calling
/// task one after another (``InlineStages``), or on a ``ComputePool``'s threads with independent stages at once or,
/// where memory matters more than latency, one after another (``PoolStages``).
///
/// The work never asks which: it says what is independent (``pair(_:_:)``; inside a stage, the ``ParallelLoop`` its
/// body is handed: ``ParallelLoop/both(_:_:)``), what is a guess (``speculate(_:then:if:)``;
/// ``ParallelLoop/both(_:then:if:)``) and what memory it could give back (``handBackSpareMemory(_:)``), and computes the
/// same result whatever the runner decides.
public protocol StageRunner: Sendable {
    /// The loop a stage's body is handed: where its parts spread (a runner that runs stages in turn hands one whose
    /// ``ParallelLoop/both(_:_:)`` makes its two one after the other).
    associatedtype Loop: ParallelLoop
    /// Runs one stage of synchronous work, handed the loop its parts spread over.
    func stage<T: Sendable>(_ body: @escaping @Sendable (Loop) throws -> T) async throws -> T
    /// Runs two stages that do not depend on each other; a concurrent runner starts `a` first (name the longer
    /// one, the critical path, first).
    func pair<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () async throws -> A,
                                        _ b: @escaping @Sendable () async throws -> B) async throws -> (A, B)
    /// Runs `a`, and `b` only if `needed` says so of `a`'s result. Each is handed the runner its stages run on: a
    /// concurrent runner starts `b` beside `a` with a runner whose stages are a ``Speculation`` (on threads nothing
    /// else wants, so it would otherwise wait for `a`), promotes it when it is needed and cancels it when it is not;
    /// one that runs stages in turn runs `b` after `a`, when needed. A runner made with a ``SpeculationGate``
    /// (``PoolStages``) holds the guess until the gate opens, and `a`'s result opens it when `b` is needed; the
    /// runners handed to `a` and `b` have no gate.
    func speculate<A: Sendable, B: Sendable>(_ a: @escaping @Sendable (Self) async throws -> A,
                                             then b: @escaping @Sendable (Self) async throws -> B,
                                             if needed: @escaping @Sendable (A) -> Bool) async throws -> (A, B?)
    /// Where work holds memory it keeps for reuse (free blocks, what malloc holds free) that the stages after it do
    /// not need: a runner that runs stages in turn for memory calls `handBack` now, so their buffers do not come on
    /// top of it; a concurrent one, which favours latency, leaves it for the next stages to reuse.
    func handBackSpareMemory(_ handBack: () -> Void)
}

/// A runner that runs every stage in turn: what ``StageRunner``'s operations do unless a runner says otherwise.
extension StageRunner {
    /// Runs one stage of synchronous work that spreads over no other thread.
    public func stage<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await stage { (_: Loop) in try body() }
    }

    public func pair<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () async throws -> A,
                                               _ b: @escaping @Sendable () async throws -> B) async throws -> (A, B) {
        try await InTurn.pair(a, b)
    }

    public func speculate<A: Sendable, B: Sendable>(_ a: @escaping @Sendable (Self) async throws -> A,
                                                    then b: @escaping @Sendable (Self) async throws -> B,
                                                    if needed: @escaping @Sendable (A) -> Bool) async throws -> (A, B?) {
        try await InTurn.speculate({ try await a(self) }, then: { try await b(self) }, if: needed)
    }

    public func handBackSpareMemory(_ handBack: () -> Void) { handBack() }
}

/// The operations of a runner that runs stages one after another.
enum InTurn {
    static func pair<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () async throws -> A,
                                               _ b: @escaping @Sendable () async throws -> B) async throws -> (A, B) {
        let first = try await a()
        return (first, try await b())
    }

    static func speculate<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () async throws -> A,
                                                    then b: @escaping @Sendable () async throws -> B,
                                                    if needed: @escaping @Sendable (A) -> Bool) async throws -> (A, B?) {
        let first = try await a()
        return (first, needed(first) ? try await b() : nil)
    }
}

/// Every stage in the calling task, one after another (tests, benchmarks, in-process use). Cancellation is the
/// calling task's (the stages' ``InTurnLoop`` reads it).
public struct InlineStages: StageRunner {
    public init() {}

    public func stage<T: Sendable>(_ body: @escaping @Sendable (InTurnLoop) throws -> T) async throws -> T {
        let loop = InTurnLoop()
        try loop.checkCancellation()
        return try body(loop)
    }
}

/// Every stage on a compute pool's threads, as work of its ``ComputeJob``'s lease; independent stages at once when
/// `concurrent`, otherwise one after another with spare memory handed back between them (a large photo: its stages'
/// buffers then never coexist). Either way a stage's loops spread over the pool's idle threads.
public struct PoolStages: StageRunner {
    /// The pool and the lease every stage is submitted as.
    public let job: ComputeJob
    /// Whether independent stages (and independent computations inside one) run at once.
    public let concurrent: Bool
    /// What this runner's ``speculate(_:then:if:)`` guesses wait for before they submit any work (nil: none).
    public let gate: SpeculationGate?
    /// The guess this runner's stages belong to: set on the runner ``speculate(_:then:if:)`` hands its guess.
    let speculation: Speculation?

    /// - Parameter gate: what this runner's guesses wait for (the sticker stage's: the network's first undecided
    ///   map); the runners its ``speculate(_:then:if:)`` hands on have none.
    public init(_ job: ComputeJob, concurrent: Bool = true, gate: SpeculationGate? = nil) {
        self.init(job, concurrent: concurrent, gate: gate, speculation: nil)
    }

    init(_ job: ComputeJob, concurrent: Bool, gate: SpeculationGate?, speculation: Speculation?) {
        self.job = job
        self.concurrent = concurrent
        self.gate = gate
        self.speculation = speculation
    }

    public var pool: ComputePool { job.pool }

    /// Runs `body` on the pool as work of the job's lease (and of this runner's guess, if it is one), handed its
    /// piece: both at once when `concurrent`, otherwise one after the other; its loops spread over idle threads
    /// either way.
    public func stage<T: Sendable>(_ body: @escaping @Sendable (ComputePiece) throws -> T) async throws -> T {
        let concurrent = concurrent
        return try await pool.run(lease: job.lease, speculation: speculation) { piece in
            try body(piece.pairing(atOnce: concurrent))
        }
    }

    public func pair<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () async throws -> A,
                                               _ b: @escaping @Sendable () async throws -> B) async throws -> (A, B) {
        guard concurrent else { return try await InTurn.pair(a, b) }
        // `a` in this task, `b` in a child: this task submits `a`'s work first (a child task starts a moment
        // later), so the stage a graph names first, its longest, is the one that gets a thread first.
        async let second = b()
        let first = try await a()
        return (first, try await second)
    }

    public func speculate<A: Sendable, B: Sendable>(_ a: @escaping @Sendable (Self) async throws -> A,
                                                    then b: @escaping @Sendable (Self) async throws -> B,
                                                    if needed: @escaping @Sendable (A) -> Bool) async throws -> (A, B?) {
        let inside = PoolStages(job, concurrent: concurrent, gate: nil, speculation: speculation)
        guard concurrent else { return try await InTurn.speculate({ try await a(inside) }, then: { try await b(inside) }, if: needed) }
        let gate = self.gate, guess = Speculation()
        let guessing = PoolStages(job, concurrent: concurrent, gate: nil, speculation: guess)
        return try await withThrowingTaskGroup(of: B.self) { group in
            // On threads nothing else wants: a busy machine does not pay for a guess.
            group.addTask {
                try await gate?.wait()
                return try await b(guessing)
            }
            let first: A
            do {
                first = try await a(inside)
            } catch {
                group.cancelAll()
                throw error
            }
            // Not needed: cancelled (work not yet started never starts), and awaited as the group ends.
            guard needed(first) else {
                group.cancelAll()
                return (first, nil)
            }
            gate?.open()
            guess.promote()
            return (first, try await group.next()!)
        }
    }

    public func handBackSpareMemory(_ handBack: () -> Void) {
        if !concurrent { handBack() }
    }
}
