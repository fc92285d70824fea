/// A job's claim on the compute threads, passed with every ``ComputePool`` submission the job makes (a
/// ``ComputeJob`` carries it beside the pool): each is scheduled as that job's work. Which job a piece of work
/// belongs to is read from the declarations, never from the task that submits it.
///
/// The pool serves leases, not submissions. A free thread takes the oldest waiting piece of work of the lease that
/// has the fewest threads running, the earliest lease among equals. So a job admitted to a slot gets a thread as
/// soon as one frees, however many pieces another job (a batch's photos, a sticker's stages) queued before it;
/// threads that no other lease wants go to the earliest; and a lease's width is its own thread plus whatever is
/// idle. Admission (how many jobs hold leases at once) is the server's job limiter's business, not the pool's.
public struct ComputeLease: Sendable, Hashable, Comparable {
    /// The job's place in the order of admission: lower was admitted earlier.
    public let order: UInt64

    public init(order: UInt64) {
        self.order = order
    }

    /// Work submitted outside any job (tests, benchmarks, in-process use): after every admitted job among equals.
    public static let unleased = ComputeLease(order: .max)

    public static func < (a: ComputeLease, b: ComputeLease) -> Bool { a.order < b.order }
}
