import Synchronization

/// Where a request's final response goes: straight to the writer, or into the batch it came in.
public enum ReplySink: Sendable {
    case direct(MessageWriter)
    case batch(BatchCollector)

    func deliver(_ message: [UInt8]) {
        switch self {
        case .direct(let writer): writer.send(message)
        case .batch(let collector): collector.add(message)
        }
    }
}

/// Gathers the responses of one batch and writes them as one array once every member that
/// expects a reply has one. An all-notification batch writes nothing.
public final class BatchCollector: Sendable {
    private struct State {
        var responses: [[UInt8]] = []
        var expected: Int?
        var done = false

        mutating func takeIfComplete() -> [[UInt8]]? {
            guard !done, let expected, responses.count == expected else { return nil }
            done = true
            return expected == 0 ? nil : responses
        }
    }

    private let writer: MessageWriter
    private let state = Mutex(State())

    init(writer: MessageWriter) { self.writer = writer }

    func add(_ response: [UInt8]) {
        let ready = state.withLock { s -> [[UInt8]]? in
            s.responses.append(response)
            return s.takeIfComplete()
        }
        if let ready { writer.send(OutgoingMessage.batch(ready)) }
    }

    /// Called after the last member was dispatched, with how many replies to expect in total.
    func seal(expecting count: Int) {
        let ready = state.withLock { s -> [[UInt8]]? in
            s.expected = count
            return s.takeIfComplete()
        }
        if let ready { writer.send(OutgoingMessage.batch(ready)) }
    }
}
