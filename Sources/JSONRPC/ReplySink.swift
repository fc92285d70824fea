import JSONRPCTransport

/// Where a request's final response goes: straight to the writer, into the batch it came in, or to the
/// application (a detached job's, such as an MCP task's, kept for the client to fetch later).
enum ReplySink: Sendable {
    case direct(MessageWriter)
    case batch(BatchCollector)
    case detached(@Sendable @MainActor ([UInt8]) -> Void)

    @MainActor
    func deliver(_ message: [UInt8]) {
        switch self {
        case .direct(let writer): writer.send(message)
        case .batch(let collector): collector.add(message)
        case .detached(let keep): keep(message)
        }
    }
}

/// Gathers the responses of one batch and writes them as one array once every member that
/// expects a reply has one. An all-notification batch writes nothing. Filled by the read loop and the
/// registry, on the main actor.
@MainActor
final class BatchCollector {
    private var responses: [[UInt8]] = []
    private var expected: Int?
    private var done = false
    private let writer: MessageWriter

    init(writer: MessageWriter) { self.writer = writer }

    func add(_ response: [UInt8]) {
        responses.append(response)
        writeIfComplete()
    }

    /// Called after the last member was dispatched, with how many replies to expect in total.
    func seal(expecting count: Int) {
        expected = count
        writeIfComplete()
    }

    private func writeIfComplete() {
        guard !done, let expected, responses.count == expected else { return }
        done = true
        if expected > 0 { writer.send(OutgoingMessage.batch(responses)) }
    }
}
