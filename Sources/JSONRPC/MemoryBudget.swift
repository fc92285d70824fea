import Synchronization

/// The bytes the server's compute jobs, and what the application keeps for them (a cache), may hold at once: how
/// the figure was chosen, and who holds what now.
///
/// The job limiter admits jobs by their estimates against ``bytes`` (``AdmissionQueue``) and reports here what the
/// running jobs hold; a holder (the worker's decoded-image cache) stays within what they leave free, and gives
/// memory back when a job starts, before any job has to wait for it.
public final class MemoryBudget: Sendable {
    /// A holder of memory outside jobs, which gives it back on request.
    public struct Holder: Sendable {
        public var name: String
        /// The bytes it holds now.
        public var held: @Sendable () -> Int
        /// Asked to hold at most this many bytes (called on the protocol side: hand the work off if it waits).
        public var trim: @Sendable (_ atMost: Int) -> Void

        public init(name: String, held: @escaping @Sendable () -> Int, trim: @escaping @Sendable (Int) -> Void) {
            self.name = name
            self.held = held
            self.trim = trim
        }
    }

    /// The budget in bytes.
    public let bytes: Int
    /// How it was chosen, in words (`--max-memory 1.5G`; `90% of the cgroup v1 limit (768 MiB) less …`).
    public let origin: String

    private struct State {
        var reserved = 0
        var holders: [Holder] = []
    }
    private let state = Mutex(State())

    public init(bytes: Int, origin: String) {
        self.bytes = max(0, bytes)
        self.origin = origin
    }

    /// Adds a holder; it is asked to trim whenever jobs start.
    public func register(_ holder: Holder) {
        state.withLock { $0.holders.append(holder) }
    }

    /// Bytes the running jobs' estimates hold.
    public var reservedBytes: Int { state.withLock { $0.reserved } }

    /// What the running jobs leave: the most a holder may keep.
    public var freeBytes: Int { max(0, bytes - reservedBytes) }

    /// Bytes each holder holds now, by name.
    public var heldBytes: [String: Int] {
        let holders = state.withLock { $0.holders }
        return Dictionary(holders.map { ($0.name, $0.held()) }, uniquingKeysWith: +)
    }

    /// The limiter's report: running jobs now hold `reserved` bytes. When jobs have just started (`trim`), the
    /// holders are asked to fit, together and in the order they registered, in what is left.
    func jobsHold(_ reserved: Int, trim: Bool) {
        let holders = state.withLock {
            $0.reserved = reserved
            return trim ? $0.holders : []
        }
        // Together, not each: what one holder keeps is not free for the next.
        var free = max(0, bytes - reserved)
        for holder in holders {
            let held = holder.held()
            if held > free { holder.trim(free) }
            free -= min(held, free)
        }
    }
}
