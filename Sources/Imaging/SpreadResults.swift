import Synchronization

/// The results of a ``ComputePool/spread(_:_:)``, a slot per index, each set by whichever thread ran the index.
final class SpreadResults<T: Sendable>: Sendable {
    private let slots: Mutex<[T?]>

    init(count: Int) { slots = Mutex([T?](repeating: nil, count: count)) }

    func set(_ index: Int, _ value: T) { slots.withLock { $0[index] = value } }

    /// Every slot's value, once the spread has returned (each index then set its slot).
    var values: [T] { slots.withLock { $0.map { $0! } } }

    /// Every slot's value, the slots emptied: the caller then holds the only references (large buffers can be
    /// freed as soon as it is done with them).
    func take() -> [T] { slots.withLock { slots in defer { slots = [] }; return slots.map { $0! } } }
}
