/// A queue of parked waiters as a state machine: a pure value with no tasks, locks or clocks, whose inputs return
/// what the caller must do (``Resume``: resume this waiter with this outcome), after leaving its lock or actor.
///
/// Every place in the worker that parks a task until something happens (a job slot, an activation block, a
/// client's answer, roots, an open gate, the registry going idle) keeps one of these behind its own lock or
/// actor, so each has the same story for order, cancellation and timeouts. swift-nio's `NIOAsyncWriter` state
/// machine and Hummingbird's connection-manager state machine are the model.
///
/// A wait has two halves, because the task that waits and the event that ends the wait race:
/// - ``enqueue()`` takes a ``Ticket``: a place in line, in the order tickets are taken. An entry can be resolved
///   (given its outcome by ``resolve(_:with:)``, ``resolveFirst(with:)``, ``resolveAll(with:)``) before its task
///   parks; the outcome is then kept for it.
/// - ``park(_:_:)`` files the waiter (a continuation) under its ticket, or hands it back at once with the outcome
///   kept for it.
///
/// Cancellation and timeouts are inputs like any other: `resolve(ticket, with: cancelled)` from a cancellation
/// handler, or from a timer the caller armed (the protocol side's `TimerScheduler`). The first outcome of an entry
/// wins; later ones are ignored, so a timeout that fires after the answer, or a cancellation after the grant,
/// changes nothing. Each waiter is resumed exactly once: by whichever input took it out of the queue.
public struct WaiterQueue<Waiter, Outcome> {
    /// A place in line.
    public struct Ticket: Hashable, Sendable {
        /// The place in the order of arrival (1 for the first ticket taken).
        public let number: UInt64
    }

    /// The one action the machine asks for: resume `waiter` with `outcome`.
    public struct Resume {
        public let waiter: Waiter
        public let outcome: Outcome
    }

    fileprivate enum Entry {
        /// A ticket taken whose task has not parked yet.
        case expected
        case parked(Waiter)
        /// An outcome kept for a task that has not parked yet.
        case resolved(Outcome)
    }

    private var entries: [UInt64: Entry] = [:]
    /// Ticket numbers in order, from `head` on; those resolved meanwhile are skipped when reached.
    private var line: [UInt64] = []
    private var head = 0
    private var lastNumber: UInt64 = 0
    /// Entries still waiting for an outcome (expected or parked).
    public private(set) var unresolvedCount = 0
    /// Entries whose task is parked.
    public private(set) var parkedCount = 0

    public init() {}

    /// Whether no entry waits for an outcome.
    public var isEmpty: Bool { unresolvedCount == 0 }

    /// Takes the next place in line.
    public mutating func enqueue() -> Ticket {
        lastNumber += 1
        entries[lastNumber] = .expected
        line.append(lastNumber)
        unresolvedCount += 1
        return Ticket(number: lastNumber)
    }

    /// Files `waiter` under `ticket`. Returns the waiter with its outcome when one was kept for it (resume it
    /// now); nil when it is parked.
    /// - Precondition: `ticket` was taken from this queue and not parked before.
    public mutating func park(_ ticket: Ticket, _ waiter: Waiter) -> Resume? {
        switch entries[ticket.number] {
        case .expected:
            entries[ticket.number] = .parked(waiter)
            parkedCount += 1
            return nil
        case .resolved(let outcome):
            entries[ticket.number] = nil
            return Resume(waiter: waiter, outcome: outcome)
        case .parked, nil:
            preconditionFailure("ticket \(ticket.number) parked twice or never taken")
        }
    }

    /// Gives `ticket` its outcome, unless it already has one. Returns the waiter to resume if it is parked.
    public mutating func resolve(_ ticket: Ticket, with outcome: Outcome) -> Resume? {
        guard let entry = entries[ticket.number] else { return nil }
        switch entry {
        case .resolved:
            return nil
        case .expected:
            entries[ticket.number] = .resolved(outcome)
            unresolvedCount -= 1
            compactIfSparse()
            return nil
        case .parked(let waiter):
            entries[ticket.number] = nil
            unresolvedCount -= 1
            parkedCount -= 1
            compactIfSparse()
            return Resume(waiter: waiter, outcome: outcome)
        }
    }

    /// Drops a ticket whose task will never park (its owner gave up before waiting): a waiting entry leaves the
    /// line, and an outcome kept for it is discarded.
    /// - Precondition: the ticket's task has not parked.
    public mutating func withdraw(_ ticket: Ticket) {
        switch entries[ticket.number] {
        case .expected:
            entries[ticket.number] = nil
            unresolvedCount -= 1
            compactIfSparse()
        case .resolved:
            entries[ticket.number] = nil
        case .parked:
            preconditionFailure("ticket \(ticket.number) withdrawn while its task is parked")
        case nil:
            break
        }
    }

    /// Whether `ticket` still waits for an outcome.
    public func isWaiting(_ ticket: Ticket) -> Bool {
        switch entries[ticket.number] {
        case .expected, .parked: return true
        case .resolved, nil: return false
        }
    }

    /// Gives the first entry in line still waiting its outcome. Returns nil when none waits; otherwise the
    /// ticket, and the waiter to resume if it is parked (nil if its task has not parked yet: the outcome is kept).
    public mutating func resolveFirst(with outcome: Outcome) -> (ticket: Ticket, resume: Resume?)? {
        while head < line.count {
            let number = line[head]
            head += 1
            let ticket = Ticket(number: number)
            guard isWaiting(ticket) else { continue }
            let resume = resolve(ticket, with: outcome)
            compactHead()
            return (ticket, resume)
        }
        compactHead()
        return nil
    }

    /// Gives every entry still waiting `outcome`; returns the parked waiters to resume, in line order.
    public mutating func resolveAll(with outcome: Outcome) -> [Resume] {
        var resumes: [Resume] = []
        for number in line[head...] {
            if let resume = resolve(Ticket(number: number), with: outcome) { resumes.append(resume) }
        }
        line = []
        head = 0
        return resumes
    }

    /// Offers each parked waiter, in line order, to `decide`, which returns its outcome to resolve it now or nil
    /// to leave it waiting. `context` is the owner's other state, which `decide` may change (a budget, free blocks).
    public mutating func resolveEach<Context>(_ context: inout Context,
                                              _ decide: (Waiter, inout Context) -> Outcome?) -> [Resume] {
        var resumes: [Resume] = []
        for number in line[head...] {
            guard case .parked(let waiter)? = entries[number], let outcome = decide(waiter, &context) else { continue }
            if let resume = resolve(Ticket(number: number), with: outcome) { resumes.append(resume) }
        }
        return resumes
    }

    /// Ticket numbers kept in the line, resolved or not (tests: the line does not grow without bound).
    var lineLength: Int { line.count - head }

    private mutating func compactHead() {
        if head > 64 && head * 2 > line.count {
            line.removeFirst(head)
            head = 0
        }
    }

    /// Entries resolved out of order (by ticket) leave their numbers in `line`; drop them when they are most of it.
    private mutating func compactIfSparse() {
        if line.count - head > 64 && line.count - head > 4 * unresolvedCount {
            line = line[head...].filter { isWaiting(Ticket(number: $0)) }
            head = 0
        }
    }
}

extension WaiterQueue: Sendable where Waiter: Sendable, Outcome: Sendable {}
extension WaiterQueue.Entry: Sendable where Waiter: Sendable, Outcome: Sendable {}
extension WaiterQueue.Resume: Sendable where Waiter: Sendable, Outcome: Sendable {}
