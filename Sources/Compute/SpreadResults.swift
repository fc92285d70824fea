import Synchronization

/// The results of a ``ParallelLoop/forEach(_:_:)``, a slot per index, each set by whichever thread ran the index.
package final class SpreadResults<T: Sendable>: Sendable {
    private let slots: Mutex<[T?]>

    package init(count: Int) { slots = Mutex([T?](repeating: nil, count: count)) }

    package func set(_ index: Int, _ value: T) { slots.withLock { $0[index] = value } }

    /// Every slot's value, once the spread has returned (each index then set its slot).
    package var values: [T] { slots.withLock { $0.map { $0! } } }

    /// Every slot's value, the slots emptied: the caller then holds the only references (large buffers can be
    /// freed as soon as it is done with them).
    package func take() -> [T] { slots.withLock { slots in defer { slots = [] }; return slots.map { $0! } } }
}
