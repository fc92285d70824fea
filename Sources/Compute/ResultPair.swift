import Synchronization

/// The two results of ``ParallelLoop/both(_:_:)``, each written by whichever thread computed it.
final class ResultPair<A: Sendable, B: Sendable>: Sendable {
    let slots = Mutex<(a: A?, b: B?)>((nil, nil))
}
