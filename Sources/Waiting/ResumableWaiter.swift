/// A waiter ``WaiterQueue`` can resume: a continuation, resumed with a `Result`.
public protocol ResumableWaiter {
    associatedtype Outcome
    /// Resumes the waiting task with `outcome` (exactly once: the queue hands each waiter out once).
    func deliver(_ outcome: sending Outcome)
}

extension CheckedContinuation: ResumableWaiter {
    public func deliver(_ outcome: sending Result<T, E>) { resume(with: outcome) }
}

extension WaiterQueue.Resume where Waiter: ResumableWaiter, Waiter.Outcome == Outcome, Outcome: Sendable {
    /// Performs the action: resumes the waiter. Call it after leaving the owner's lock.
    public func perform() { waiter.deliver(outcome) }
}

extension Optional {
    /// Performs the action the queue asked for, if any (`queue.resolve(ticket, with: outcome).perform()`).
    public func perform<W: ResumableWaiter, O: Sendable>() where Wrapped == WaiterQueue<W, O>.Resume, W.Outcome == O {
        self?.perform()
    }
}

extension Array {
    /// Performs every action the queue asked for, in order.
    public func perform<W: ResumableWaiter, O: Sendable>() where Element == WaiterQueue<W, O>.Resume, W.Outcome == O {
        for resume in self { resume.perform() }
    }
}

/// The queue of parked continuations that every waiting place in the worker keeps.
public typealias ContinuationQueue<Value> = WaiterQueue<CheckedContinuation<Value, any Error>, Result<Value, any Error>>
