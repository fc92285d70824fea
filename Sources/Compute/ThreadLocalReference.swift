import Glibc

/// A reference the current thread holds for the length of a call: how code running on a ``ComputePool`` thread
/// finds what the pool set up for the piece it runs (its ``CancellationFlag``, its pool and lease), where task-locals
/// do not reach (the code is synchronous and the thread is not the task's).
struct ThreadLocalReference<Value: AnyObject>: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// The value this thread holds, if it is inside a ``with(_:_:)``.
    var current: Value? {
        pthread_getspecific(key).map { Unmanaged<Value>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with `value` as this thread's value (the previous one afterwards). Unretained by the key:
    /// `value` is kept alive by this call for as long as the key points at it.
    func with<T>(_ value: Value, _ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(value).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return try withExtendedLifetime(value) { try body() }
    }
}
