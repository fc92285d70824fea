import JSONRPCTransport
import Testing
@testable import PhotoWorker

/// `MCPProgressReporter`: values that only increase, and a batch's messages between two counts.
@Suite("MCP progress", .timeLimit(.minutes(10)))
struct MCPProgressReporterTests {
    @Test("Messages at the same count move towards the next, never to it; a stale count is dropped; counts go on")
    func halfWayToTheNext() {
        let reporter = MCPProgressReporter(token: "t", minimumInterval: .zero)
        func value(_ done: Int, _ message: String?) -> Double? {
            reporter.notification(done: done, total: 2, message: message)?.params["progress"]?.doubleValue
        }
        #expect(value(0, "sources[0]: 3 of 40 steps") == 0.5)
        #expect(value(0, "sources[0]: 9 of 40 steps") == 1 - 1.0 / 3)
        // However many come at one count, each is above the last and below the next count.
        var last = 1 - 1.0 / 3
        for k in 0..<200 {
            let v = value(0, "beat \(k)")
            #expect(v.map { $0 > last && $0 < 1 } == true, "beat \(k): \(String(describing: v)) after \(last)")
            last = v ?? last
        }
        #expect(value(0, nil) == nil)  // nothing new without a message
        #expect(value(1, nil) == 1)
        #expect(value(0, "late") == nil)  // a count already passed
        #expect(value(1, "sources[1]: 1 of 40 steps") == 1.5)
        #expect(value(2, nil) == 2)
        // At the total a message would pass it (2.5 of 2, seen when a batch's last item said so after its count).
        #expect(value(2, "sources[1]: written") == nil)
    }
}
