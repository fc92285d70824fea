import Compute
import Foundation
import JSONRPCTransport
import Synchronization
import Waiting

/// A bounded pool of threads for blocking calls: file reads, byte loops over inline data, libcurl's transfers.
/// They never sit on the cooperative pool (whose few threads serve every task's wake-ups) nor on a thread started
/// per call. NIO's `NIOThreadPool` is the model: a FIFO of work items, `runIfActive`'s cancellation (a call
/// cancelled before its body starts is dropped at once; a body that started runs to its end, or until `onCancel`
/// makes it return), threads that start as work comes (up to the bound) and end when the pool stops.
public final class BlockingPool: Sendable {
    private struct State {
        var queue: [any BlockingWork] = []
        var head = 0
        var threads = 0
        var idle = 0
        var stopped = false
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    /// The most threads at once.
    public let maxThreads: Int
    private let name: String

    /// - Parameters:
    ///   - threads: the most blocking calls at once (at least 1); more wait in line.
    ///   - name: the threads' name (`name-1`, ...).
    public init(threads: Int, name: String = "pw-blocking") {
        maxThreads = max(1, threads)
        self.name = name
    }

    /// Runs `body` on a pool thread and returns what it returns or throws.
    /// - Parameter onCancel: called, on any thread, when the calling task is cancelled while `body` runs (a
    ///   transfer's abort); a call cancelled before `body` starts throws `CancellationError` without running it.
    /// - Throws: `CancellationError` when cancelled before `body` starts, or once the pool has stopped.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T,
                                 onCancel: @escaping @Sendable () -> Void = {}) async throws -> T {
        let work = Work(body)
        let action = state.withLock { s -> Action in
            if s.stopped { return .refuse }
            s.queue.append(work)
            if s.idle > 0 {
                s.idle -= 1  // that thread is now woken for this item
                return .wake
            }
            guard s.threads < maxThreads else { return .none }  // a busy thread takes it when it is done
            s.threads += 1
            return .start(s.threads)
        }
        switch action {
        case .refuse: throw CancellationError()
        case .wake: available.signal()
        case .start(let number): BlockingThread.start(name: "\(name)-\(number)") { [self] in serve() }
        case .none: break
        }
        return try await work.wait(onCancel: onCancel)
    }

    /// Runs `body` on a pool thread, handing it the loop its long work polls (a write's cancellation before its
    /// rename): in turn, cancelled when the calling task is, although the pool's thread is no task's.
    /// - Throws: what `body` throws (`CancellationError` when it saw the cancel), or what ``run(_:onCancel:)`` throws.
    public func run<T: Sendable>(polling body: @escaping @Sendable (InTurnLoop) throws -> T) async throws -> T {
        let flag = CancellationFlag()
        return try await run({ try body(InTurnLoop(cancelledBy: flag)) }, onCancel: { flag.cancel() })
    }

    private enum Action { case refuse, wake, start(Int), none }

    /// Ends the threads once the work queued has run; work submitted after is refused.
    public func stop() {
        let sleeping = state.withLock { s -> Int in
            s.stopped = true
            defer { s.idle = 0 }
            return s.idle
        }
        for _ in 0..<sleeping { available.signal() }
    }

    /// Threads running now (tests).
    public var threadCount: Int { state.withLock { $0.threads } }

    private enum Next { case work(any BlockingWork), end, sleep }

    private func serve() {
        while true {
            let next = state.withLock { s -> Next in
                if s.head < s.queue.count {
                    defer {
                        s.head += 1
                        if s.head > 64 && s.head * 2 > s.queue.count { s.queue.removeFirst(s.head); s.head = 0 }
                    }
                    return .work(s.queue[s.head])
                }
                if s.stopped {
                    s.threads -= 1
                    return .end
                }
                s.idle += 1
                return .sleep
            }
            switch next {
            case .work(let work): work.execute()
            case .end: return
            case .sleep: available.wait()
            }
        }
    }
}

/// One call's body and its waiting caller.
private protocol BlockingWork: Sendable {
    /// Runs the body unless the call was cancelled before, and hands the caller its outcome.
    func execute()
}

private final class Work<T: Sendable>: BlockingWork {
    private struct State {
        var caller = ContinuationQueue<T>()
        /// In the state, not a stored property beside it: a pool thread reads it under this lock, so every access is
        /// a locked one (ThreadSanitizer sees no edge through `Mutex`'s futex, and a property written in `init` and
        /// read on the pool's thread was reported as a race; scripts/test-sanitizers.sh filters locked accesses only).
        var ticket: ContinuationQueue<T>.Ticket
        var started = false
    }

    private let body: @Sendable () throws -> T
    private let state: Mutex<State>

    init(_ body: @escaping @Sendable () throws -> T) {
        self.body = body
        var caller = ContinuationQueue<T>()
        let ticket = caller.enqueue()
        state = Mutex(State(caller: caller, ticket: ticket))
    }

    func execute() {
        let run = state.withLock { s -> Bool in
            guard s.caller.isWaiting(s.ticket) else { return false }  // cancelled while queued
            s.started = true
            return true
        }
        guard run else { return }
        let outcome = Result { try body() }
        state.withLock { $0.caller.resolve($0.ticket, with: outcome) }.perform()
    }

    func wait(onCancel: @escaping @Sendable () -> Void) async throws -> T {
        try await Parking.wait({ c in state.withLock { $0.caller.park($0.ticket, c) }.perform() }, onCancel: {
            // Not started: dropped now. Started: its body must end by itself (onCancel may tell it to), because what
            // it borrows (a descriptor, a buffer) must outlive it.
            let (started, dropped) = state.withLock { s -> (Bool, ContinuationQueue<T>.Resume?) in
                s.started ? (true, nil) : (false, s.caller.resolve(s.ticket, with: .failure(CancellationError())))
            }
            dropped.perform()
            if started { onCancel() }
        })
    }
}
