import Waiting

/// Job slots and the memory budget, cancellation-aware, on the main actor with the job runner that drives it (no
/// lock: every call but a cancellation's arrives there, and a cancellation hops there).
///
/// Places in line are tickets, taken with `enqueue(bytes:)` when a job is ready to wait, and which tickets start is
/// decided by an ``AdmissionQueue``: slots go to tickets in the order they were taken, whether or not their tasks
/// have started waiting yet (a grant for a ticket whose task has not arrived is kept for it), and a ticket whose
/// bytes do not fit the budget beside the running ones waits for memory, passed a bounded number of times by later
/// tickets that fit. A waiter whose task is cancelled leaves the line at once and throws `CancellationError`, so
/// cancelling a queued job never costs a slot or bytes. The parked tasks are a ``WaiterQueue``.
@MainActor
final class JobLimiter {
    /// A place in line; its bytes are the admission queue's to know (given at once, or once estimated).
    struct Ticket: Sendable {
        fileprivate let parked: ContinuationQueue<Void>.Ticket
        /// The place in the order of arrival.
        var number: UInt64 { parked.number }
    }

    private var admission: AdmissionQueue
    private var line = ContinuationQueue<Void>()
    /// The parked half of each ticket the admission queue has not granted yet, by place.
    private var ungranted: [AdmissionQueue.Place: ContinuationQueue<Void>.Ticket] = [:]
    /// The budget jobs are admitted against, told what they hold as it changes.
    private let memory: MemoryBudget?

    /// - Parameters:
    ///   - slots: how many holders may run at once (at least 1).
    ///   - memory: the budget running holders' bytes must fit; nil: none.
    nonisolated init(slots: Int, memory: MemoryBudget? = nil) {
        admission = AdmissionQueue(slots: slots, budgetBytes: memory?.bytes)
        self.memory = memory
    }

    /// How many tickets are in line without a slot yet (waiting, or taken and not yet waiting).
    package var waiting: Int { line.unresolvedCount }

    /// How many tasks are parked in `acquire` (for tests that need a waiter to have arrived).
    package var arrived: Int { line.parkedCount }

    /// Bytes held by the jobs running now.
    var reservedBytes: Int { admission.reservedBytes }

    /// Tickets waiting because their bytes do not fit beside the running jobs'.
    var waitingForMemory: Int { admission.waitingForMemoryCount }

    /// Whether `ticket` is waiting for memory (rather than for a slot or its estimate).
    func waitsForMemory(_ ticket: Ticket) -> Bool { admission.waitsForMemory(ticket.number) }

    /// Whether a job of `bytes` could ever start: at most the whole budget.
    func canEverFit(_ bytes: Int) -> Bool { admission.canEverFit(bytes) }

    /// Takes the next place in line for a job that will hold `bytes`, or nil until ``estimate(_:bytes:)`` says
    /// (granted at once, for its task to find, when a slot and the bytes are free).
    /// - Precondition: `canEverFit(bytes)`.
    func enqueue(bytes: Int? = 0) -> Ticket {
        let ticket = Ticket(parked: line.enqueue())
        ungranted[ticket.number] = ticket.parked
        grant(admission.arrive(ticket.number, bytes: bytes))
        return ticket
    }

    /// The bytes of a ticket taken without them.
    /// - Precondition: `canEverFit(bytes)`.
    func estimate(_ ticket: Ticket, bytes: Int) {
        grant(admission.estimate(ticket.number, bytes: bytes))
    }

    /// Takes a place in line and waits for a slot: `acquire(enqueue())` (tests).
    @discardableResult
    package func acquire() async throws -> Ticket {
        let ticket = enqueue()
        try await acquire(ticket)
        return ticket
    }

    /// Waits until the ticket is granted. Throws `CancellationError` if the task is cancelled while waiting (or
    /// before), giving up the place in line, or the grant if one had already been kept for this ticket.
    func acquire(_ ticket: Ticket) async throws {
        try await Parking.wait({ line.park(ticket.parked, $0).perform() }, onCancel: {
            Task { @MainActor in self.cancelWaiting(ticket) }
        })
        if Task.isCancelled {
            // Granted before the cancellation reached the line: the slot goes to the next in line.
            release(ticket)
            throw CancellationError()
        }
    }

    /// A ticket whose job ends before waiting for it (its estimate failed or was cancelled, or the job could never
    /// fit): it leaves the line, or gives back the grant kept for it.
    func giveUp(_ ticket: Ticket) {
        let granted = !line.isWaiting(ticket.parked)
        line.withdraw(ticket.parked)
        ungranted[ticket.number] = nil
        grant(granted ? admission.finish(ticket.number) : admission.leave(ticket.number))
    }

    /// A waiting ticket's task was cancelled: it leaves the line (if it was still in it) and is told so.
    private func cancelWaiting(_ ticket: Ticket) {
        // Still in line: it leaves it. Already granted: `acquire` gives the grant back when it sees the cancellation.
        guard line.isWaiting(ticket.parked) else { return }
        line.resolve(ticket.parked, with: .failure(CancellationError())).perform()
        ungranted[ticket.number] = nil
        grant(admission.leave(ticket.number))
    }

    /// Returns a granted ticket's slot and bytes.
    func release(_ ticket: Ticket) {
        grant(admission.finish(ticket.number))
    }

    /// Tells the budget what running jobs hold (and its holders to make room when jobs started), then gives the
    /// admitted tickets their grant, in order.
    private func grant(_ places: [AdmissionQueue.Place]) {
        memory?.jobsHold(admission.reservedBytes, trim: !places.isEmpty)
        for place in places {
            guard let parked = ungranted.removeValue(forKey: place) else { continue }
            line.resolve(parked, with: .success(())).perform()
        }
    }
}
