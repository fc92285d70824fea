/// Where a pipeline's stages run. A pipeline (the sticker's: ``StickerExtractor/extract(from:options:subjectMap:on:)``)
/// declares its stages and which of them are independent once, and a runner decides how they run: in the calling
/// task one after another (``InlineStages``), or on a ``ComputePool``'s threads with independent stages at once or,
/// where memory matters more than latency, one after another (``PoolStages``).
public protocol StageRunner: ParallelLoop {
    /// Whether ``pair(_:_:)`` runs its two stages at the same time.
    var runsConcurrently: Bool { get }
    /// Runs one stage of synchronous work.
    func stage<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T
    /// Runs two stages that do not depend on each other; a concurrent runner starts `a` first (name the longer
    /// one, the critical path, first).
    func pair<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () async throws -> A,
                                        _ b: @escaping @Sendable () async throws -> B) async throws -> (A, B)
    /// Runs `a`, and `b` only if `needed` says so of `a`'s result. A concurrent runner starts `b` beside `a` as a
    /// ``Speculation`` (on threads nothing else wants, so it would otherwise wait for `a`), promotes it when it is
    /// needed and cancels it when it is not; one that runs stages in turn runs `b` after `a`, when needed. Under a
    /// ``SpeculationGate/current`` gate the guess waits for the gate before it submits any work, and `a`'s result
    /// opens it when `b` is needed; the stages inside `a` and `b` see no gate.
    func speculate<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () async throws -> A,
                                             then b: @escaping @Sendable () async throws -> B,
                                             if needed: @escaping @Sendable (A) -> Bool) async throws -> (A, B?)
    // As a ``ParallelLoop`` (a network's pass takes a runner as its loop): from inside a stage's body, `forEach`
    // calls `body(thread, index)` for every index, on the stage's thread (thread 0) and, where the runner has
    // idle threads, on others; `width` is the most threads one stage may spread over, its own included.
}

extension StageRunner {
    public var width: Int { 1 }

    public func forEach(_ count: Int, _ body: @escaping @Sendable (_ thread: Int, _ index: Int) throws -> Void) throws {
        for i in 0..<count { try body(0, i) }
    }

    public func pair<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () async throws -> A,
                                               _ b: @escaping @Sendable () async throws -> B) async throws -> (A, B) {
        guard runsConcurrently else {
            let first = try await a()
            return (first, try await b())
        }
        // `a` in this task, `b` in a child: this task submits `a`'s work first (a child task starts a moment
        // later), so the stage a graph names first, its longest, is the one that gets a thread first.
        async let second = b()
        let first = try await a()
        return (first, try await second)
    }

    public func speculate<A: Sendable, B: Sendable>(_ a: @escaping @Sendable () async throws -> A,
                                                    then b: @escaping @Sendable () async throws -> B,
                                                    if needed: @escaping @Sendable (A) -> Bool) async throws -> (A, B?) {
        let gate = SpeculationGate.current
        return try await SpeculationGate.$current.withValue(nil) {
            guard runsConcurrently else {
                let first = try await a()
                return (first, needed(first) ? try await b() : nil)
            }
            let speculation = Speculation()
            return try await withThrowingTaskGroup(of: B.self) { group in
                // On threads nothing else wants: a busy machine does not pay for a guess.
                group.addTask {
                    try await gate?.wait()
                    return try await Speculation.$current.withValue(speculation) { try await b() }
                }
                let first: A
                do {
                    first = try await a()
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
                speculation.promote()
                return (first, try await group.next()!)
            }
        }
    }
}

/// Every stage in the calling task, one after another (tests, benchmarks, in-process use). Cancellation is the
/// calling task's (``Cancellation`` falls back to it off the compute threads).
public struct InlineStages: StageRunner {
    public init() {}

    public var runsConcurrently: Bool { false }

    public func stage<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try Cancellation.check()
        return try body()
    }
}

/// Every stage on a compute pool's threads, as work of the current task's ``ComputeLease``; independent stages at
/// once when `concurrent`.
public struct PoolStages: StageRunner {
    public let pool: ComputePool
    public let runsConcurrently: Bool

    public init(_ pool: ComputePool, concurrent: Bool = true) {
        self.pool = pool
        self.runsConcurrently = concurrent
    }

    public func stage<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.run(body)
    }

    public var width: Int { pool.threadCount }

    public func forEach(_ count: Int, _ body: @escaping @Sendable (_ thread: Int, _ index: Int) throws -> Void) throws {
        try pool.forEach(count, width: width, body)
    }
}
