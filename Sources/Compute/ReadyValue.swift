import Synchronization

/// A value one stage sets once it has made it, and another takes if it is ready by then (or makes its own): for a
/// result a later stage can reuse when the timing allows, without waiting for it.
package final class ReadyValue<T: Sendable>: Sendable {
    private let stored = Mutex<T?>(nil)

    package init() {}

    package func set(_ value: T) { stored.withLock { $0 = value } }

    /// The value, if it has been set.
    package var value: T? { stored.withLock { $0 } }
}
