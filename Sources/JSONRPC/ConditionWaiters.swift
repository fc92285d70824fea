/// Callers suspended until a condition of their owner becomes true, each with its own deadline.
///
/// Kept by a main-actor owner (the registry, the job runner), which calls ``resumeAll(returning:)`` at the moment the
/// condition turns true; a waiter whose deadline passes first is resumed with `false`. Each waiter
/// is resumed exactly once: whichever of the two paths removes it from the table resumes it.
struct ConditionWaiters {
    private var waiting: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    private var nextTicket: UInt64 = 0

    var isEmpty: Bool { waiting.isEmpty }

    /// Reserves a place; the caller suspends with ``park(_:_:)`` and arms its deadline with
    /// ``expire(_:)``.
    mutating func ticket() -> UInt64 {
        nextTicket += 1
        return nextTicket
    }

    mutating func park(_ ticket: UInt64, _ continuation: CheckedContinuation<Bool, Never>) {
        waiting[ticket] = continuation
    }

    /// The deadline of one waiter passed: resumes it with `false` unless it was already resumed.
    mutating func expire(_ ticket: UInt64) {
        waiting.removeValue(forKey: ticket)?.resume(returning: false)
    }

    /// The condition became true: resumes every waiter.
    mutating func resumeAll(returning value: Bool = true) {
        let all = waiting
        waiting = [:]
        for continuation in all.values { continuation.resume(returning: value) }
    }
}
