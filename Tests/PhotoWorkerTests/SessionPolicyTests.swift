import Foundation
import JSONRPC
import JSONRPCTransport
@testable import PhotoWorker
import Testing

import Glibc

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
}
