import Deadlines
import JSONRPC
import JSONRPCTransport

extension InProcessConnection {
    /// ``InProcessConnection/call(_:_:onEvent:)`` under a deadline: a reply that never comes fails the test saying
    /// which method it waited for, instead of hanging until the suite's limit. Five minutes, as the in-process
    /// tests' reads of the worker's messages (``MethodFamilyTests/streamLimit``: a full run beside other builds has
    /// stalled the cooperative pool for more than a minute).
    func reply(_ method: String, _ params: JSONValue? = nil,
               within limit: Duration = MethodFamilyTests.streamLimit) async throws -> JSONValue {
        try await Deadline.run("the reply to \(method)", within: limit) { try await self.call(method, params) }
    }
}
