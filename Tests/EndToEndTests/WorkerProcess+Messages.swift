import JSONRPCTransport
import PhotoWorkerTestSupport

extension WorkerProcess {
    /// Polls `jobs.list` (as requests `firstID`, `firstID + 1`, ...) until no job is in flight, and returns every
    /// other message that came meanwhile (`waitForJobs` drops them: a test that a reply never comes needs them).
    /// Bounded: a job that never ends fails with `TimedOut`.
    func messagesUntilNoJobs(firstID: Int = 100, polls: Int = 5000) async throws -> [JSONValue] {
        var seen: [JSONValue] = []
        for id in firstID..<(firstID + polls) {
            request(id, "jobs.list")
            let (list, before) = try await response(id)
            seen += before
            if list["result"]?["jobs"] == [] { return seen }
        }
        throw TimedOut(what: "every job to end")
    }
}
