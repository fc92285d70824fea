import Deadlines
import Foundation
import Synchronization
import JSONRPC
import JSONRPCTransport
@testable import PhotoWorker
import Testing

import Glibc

@Suite(.timeLimit(.minutes(10)))
struct SessionPolicyTests {
    @Test func plainSessionsAreUnrestrictedAndMCPSessionsConfined() {
        let policy = SessionPolicy()
        #expect(policy.current == .unrestricted)
        policy.clientInitialized(ClientSession(dialect: MCPDialect.name))
        let mcp = policy.current
        #expect(mcp.origin == "working-directory")
        #expect(mcp.replace == .never)
        #expect(mcp.urls == .public)
        guard case .within(let dirs) = mcp.read else { Issue.record("not confined"); return }
        #expect(dirs == [SessionPolicy.canonical(FileManager.default.currentDirectoryPath)])
    }

    @Test func commandLineFoldersWinOverRootsAndURLsCanBeChosen() async {
        let policy = SessionPolicy(configuration: .init(readDirectories: ["/r"], writeDirectories: ["/w"], urls: .disabled))
        policy.clientInitialized(ClientSession(dialect: MCPDialect.name, capabilities: ["roots": [:]]))
        let p = await policy.policy()  // does not wait: the command line's folders apply
        #expect(p.read == .within(["/r"]) && p.write == .within(["/w"]) && p.origin == "allow-dir")
        #expect(p.urls == .disabled)
    }

    @Test func requestsWaitForRootsThenFallBackWhenNoneCome() async {
        var configuration = SessionPolicy.Configuration()
        configuration.rootsTimeout = .milliseconds(50)
        let policy = SessionPolicy(configuration: configuration)
        policy.clientInitialized(ClientSession(dialect: MCPDialect.name, capabilities: ["roots": ["listChanged": true]]))
        #expect(policy.policyFacts?["read"] == "pending")
        let p = await policy.policy()  // the client never sends notifications/initialized
        #expect(p.origin == "working-directory")
    }

    /// A request cancelled while it waits for the client's roots stops waiting at once (it used to wait out the
    /// roots timeout), with nothing allowed; the others still wait for the roots.
    @Test func aCancelledRequestStopsWaitingForRootsAtOnce() async throws {
        let timers = ManualTimers()  // the roots timeout never fires unless the test says so
        let policy = SessionPolicy(timers: timers)
        policy.clientInitialized(ClientSession(dialect: MCPDialect.name, capabilities: ["roots": ["listChanged": true]]))
        let cancelled = Task { await policy.policy() }
        let patient = Task { await policy.policy() }
        try await Deadline.until("two requests waiting for roots, \(policy.waitingCount) so far") { policy.waitingCount == 2 }
        cancelled.cancel()
        let ended = Ended()
        Task { _ = await cancelled.value; ended.set() }
        try await Deadline.until("the cancelled request's policy() to return before the roots timeout") { ended.value }
        #expect(try await Deadline.value(of: cancelled, "the cancelled request's policy") == .cancelled)
        #expect(policy.waitingCount == 1, "the other request still waits")
        timers.fireAll()  // the roots never came
        #expect(try await Deadline.value(of: patient, "the patient request's policy after the roots timeout").origin == "working-directory")
    }

    /// A wait for roots that a later one replaces (here a second `initialize`; in a session, the `roots/list` asked
    /// for on `notifications/initialized`) has its timeout cancelled, not left to fire; the later wait's own still ends it.
    @Test func aSupersededWaitsTimeoutIsCancelled() {
        let timers = ManualTimers()
        let policy = SessionPolicy(timers: timers)
        let session = ClientSession(dialect: MCPDialect.name, capabilities: ["roots": ["listChanged": true]])
        policy.clientInitialized(session)
        #expect(timers.count == 1, "\(timers.count) pending")
        policy.clientInitialized(session)
        #expect(timers.count == 1, "the first wait's timeout is cancelled: \(timers.count) pending")
        #expect(policy.policyFacts?["read"] == "pending")
        timers.fireAll()
        #expect(policy.current.origin == "working-directory", "\(policy.current.origin)")
    }

    @Test func modernSessionsNeverWaitForRoots() async {
        let policy = SessionPolicy()
        // A 2026-07-28 client that declares roots: the revision deprecates them and lets no server ask.
        policy.clientInitialized(ClientSession(dialect: MCPDialect.name, capabilities: ["roots": ["listChanged": true]],
                                               protocolVersion: "2026-07-28"))
        #expect(policy.policyFacts?["read"] != "pending")
        let p = await policy.policy()
        #expect(p.origin == "working-directory" && p.replace == .never && p.urls == .public)
    }

    final class Ended: Sendable {
        private let flag = Mutex(false)
        func set() { flag.withLock { $0 = true } }
        var value: Bool { flag.withLock { $0 } }
    }
}
