/// Which waiting jobs may start, given job slots and a memory budget: a pure value with no tasks, locks or clocks,
/// driven by ``JobLimiter`` on the main actor (each input returns the places it admits now, in order).
///
/// A place is admitted when a slot is free and its bytes fit beside the bytes of the places running. Places are
/// considered in arrival order. A place whose bytes do not fit yet waits, as does one whose bytes are not known yet
/// (its job's estimate is being made); a later place that fits may go ahead of it (so a thumbnail need not wait for
/// a 24 MP sticker to find room, nor for a slow header read), but only while every place it passes has been passed
/// fewer than ``maxOvertakes`` times: after that the line holds still until the head can start, so a large job is
/// never starved by a stream of small ones, and a small job behind a large one waits at most until the large one
/// starts. A place that waits only for a slot is never passed: slots go strictly in arrival order.
public struct AdmissionQueue: Sendable {
    /// A place in line: its number in the order of arrival.
    public typealias Place = UInt64

    private struct Waiting: Sendable {
        let place: Place
        /// Nil while the job's estimate is being made.
        var bytes: Int?
        /// How many later places have started ahead of this one.
        var overtaken = 0
    }

    /// Jobs that may run at once.
    public let slots: Int
    /// Bytes the running places may hold together; nil: no budget (slots alone decide).
    public let budgetBytes: Int?
    /// How many times a waiting place may be passed by later ones that can start (see the type's summary).
    public let maxOvertakes: Int

    /// Bytes each running place holds.
    private var runningBytes: [Place: Int] = [:]
    /// Bytes the running places hold.
    public private(set) var reservedBytes = 0
    private var line: [Waiting] = []

    public init(slots: Int, budgetBytes: Int? = nil, maxOvertakes: Int = 4) {
        self.slots = max(1, slots)
        self.budgetBytes = budgetBytes.map { max(0, $0) }
        self.maxOvertakes = max(0, maxOvertakes)
    }

    /// Places admitted and not finished.
    public var running: Int { runningBytes.count }

    /// Places waiting.
    public var waitingCount: Int { line.count }

    /// Places waiting because their bytes do not fit beside those running now.
    public var waitingForMemoryCount: Int { line.count { w in w.bytes.map { !fitsBudget($0) } ?? false } }

    /// Whether `place` waits for memory rather than for a slot or its estimate: its bytes do not fit beside those
    /// running now.
    public func waitsForMemory(_ place: Place) -> Bool {
        guard let w = line.first(where: { $0.place == place }), let bytes = w.bytes else { return false }
        return !fitsBudget(bytes)
    }

    /// Whether a place of `bytes` could ever run: at most the whole budget.
    public func canEverFit(_ bytes: Int) -> Bool { budgetBytes.map { bytes <= $0 } ?? true }

    /// A place arrives needing `bytes` while it runs, or nil when they are not known yet (``estimate(_:bytes:)``
    /// gives them). Returns the places admitted now (this one, if it may start).
    /// - Precondition: `place` is larger than every place that arrived before, and `canEverFit(bytes)`.
    public mutating func arrive(_ place: Place, bytes: Int?) -> [Place] {
        precondition(line.last.map { $0.place < place } ?? true, "places arrive in order")
        line.append(Waiting(place: place, bytes: bytes.map(clamped)))
        return admit()
    }

    /// A waiting place's bytes are known. Returns the places admitted now.
    /// - Precondition: `canEverFit(bytes)`.
    public mutating func estimate(_ place: Place, bytes: Int) -> [Place] {
        guard let i = line.firstIndex(where: { $0.place == place }) else { return [] }
        line[i].bytes = clamped(bytes)
        return admit()
    }

    /// A waiting place leaves the line (its job was cancelled, or failed before it could start). Returns the places
    /// admitted now.
    public mutating func leave(_ place: Place) -> [Place] {
        line.removeAll { $0.place == place }
        return admit()
    }

    /// A running place ends, giving back its slot and bytes. Returns the places admitted now.
    public mutating func finish(_ place: Place) -> [Place] {
        guard let bytes = runningBytes.removeValue(forKey: place) else {
            preconditionFailure("place \(place) finished without running")
        }
        reservedBytes -= bytes
        return admit()
    }

    /// Without a budget bytes decide nothing; they are kept small enough that no number of places overflows the sum.
    private func clamped(_ bytes: Int) -> Int { min(max(0, bytes), budgetBytes ?? 1 << 40) }

    private func fitsBudget(_ bytes: Int) -> Bool {
        budgetBytes.map { bytes <= $0 - reservedBytes } ?? true
    }

    private mutating func admit() -> [Place] {
        var admitted: [Place] = []
        var index = 0
        while running < slots, index < line.count {
            let candidate = line[index]
            if let bytes = candidate.bytes, fitsBudget(bytes) {
                // The places before it wait for memory or their estimate (they were skipped); each must have room to
                // be passed.
                guard line[..<index].allSatisfy({ $0.overtaken < maxOvertakes }) else { break }
                for i in 0..<index { line[i].overtaken += 1 }
                line.remove(at: index)
                runningBytes[candidate.place] = bytes
                reservedBytes += bytes
                admitted.append(candidate.place)
                index = 0
            } else {
                index += 1
            }
        }
        return admitted
    }
}
