import JSONRPCTransport
import Testing
@testable import PhotoWorker

/// `MCPProgressReporter`: values that only increase, and a batch's message between two counts half-way to the next.
@Suite("MCP progress", .timeLimit(.minutes(5)))
struct MCPProgressReporterTests {
    @Test("Messages at the same count move half-way to the next; a stale count is dropped; counts go on as they come")
    func halfWayToTheNext() {
        let reporter = MCPProgressReporter(token: "t", minimumInterval: .zero)
        func value(_ done: Int, _ message: String?) -> Double? {
            reporter.notification(done: done, total: 2, message: message)?.params["progress"]?.doubleValue
        }
        #expect(value(0, "sources[0]: 3 of 40 steps") == 0.5)
        #expect(value(0, "sources[0]: 9 of 40 steps") == 0.75)
        #expect(value(0, nil) == nil)  // nothing new without a message
        #expect(value(1, nil) == 1)
        #expect(value(0, "late") == nil)  // a count already passed
        #expect(value(1, "sources[1]: 1 of 40 steps") == 1.5)
        #expect(value(2, nil) == 2)
    }
}
