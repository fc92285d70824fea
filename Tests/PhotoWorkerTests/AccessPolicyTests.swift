import Foundation
import JSONRPC
import JSONRPCTransport
@testable import PhotoWorker
import Testing

import Glibc

struct IPAddressClassTests {
    @Test(arguments: [
        ("8.8.8.8", IPAddressClass.public), ("93.184.216.34", .public), ("[2606:4700::1111]", .public),
        ("127.0.0.1", .loopback), ("127.255.0.9", .loopback), ("::1", .loopback), ("[::1]", .loopback),
        ("10.0.0.1", .private), ("172.16.5.4", .private), ("172.31.255.255", .private), ("172.32.0.1", .public),
        ("192.168.0.1", .private), ("100.64.0.1", .private), ("100.128.0.1", .public), ("198.18.0.1", .private),
        ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal), ("fe80::1%eth0", .linkLocal),
        ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal),
        ("224.0.0.1", .multicast), ("ff02::1", .multicast),
        ("0.0.0.0", .unspecified), ("::", .unspecified), ("255.255.255.255", .unspecified),
        ("::ffff:127.0.0.1", .loopback), ("::ffff:10.1.2.3", .private), ("::ffff:8.8.8.8", .public),
        ("64:ff9b::a9fe:a9fe", .linkLocal), ("::127.0.0.1", .loopback),
    ])
    func classifies(_ literal: String, _ expected: IPAddressClass) {
        #expect(IPAddressClass(literal: literal) == expected, "\(literal)")
    }

    @Test func namesAreNotAddresses() {
        #expect(IPAddressClass(literal: "localhost") == nil)
        #expect(IPAddressClass(literal: "10.0.0") == nil)
    }
}

/// The walk used where the kernel has no openat2: stricter, never looser.
struct FileAccessFallbackTests {
    private func tree() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pw-walk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: "\(root)/in/sub", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(root)/out", withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: URL(fileURLWithPath: "\(root)/in/sub/a.txt"))
        try Data("outside".utf8).write(to: URL(fileURLWithPath: "\(root)/out/b.txt"))
        try FileManager.default.createSymbolicLink(atPath: "\(root)/in/link", withDestinationPath: "sub/a.txt")
        try FileManager.default.createSymbolicLink(atPath: "\(root)/in/away", withDestinationPath: "../out")
        return root
    }

    private func open(_ path: String, root: String, openat2: Bool) -> Result<Int32, FileAccess.Failure> {
        Result { try FileAccess.open(path, in: .within(["\(root)/in"]), flags: O_RDONLY, useOpenat2: openat2) }
            .mapError { $0 as! FileAccess.Failure }
    }

    @Test(arguments: [true, false])
    func plainPathsOpenAndEscapesAreRefused(openat2: Bool) throws {
        let root = try tree()
        let fd = try open("\(root)/in/sub/a.txt", root: root, openat2: openat2).get()
        close(fd)
        #expect(throws: FileAccess.Failure.escapes) { try open("\(root)/in/sub/../../out/b.txt", root: root, openat2: openat2).get() }
        #expect(throws: FileAccess.Failure.outside) { try open("\(root)/out/b.txt", root: root, openat2: openat2).get() }
        #expect(throws: (any Error).self) { try open("\(root)/in/away/b.txt", root: root, openat2: openat2).get() }
    }

    @Test func theWalkFollowsNoSymbolicLink() throws {
        let root = try tree()
        // openat2 follows a link that stays inside; the walk refuses every link.
        let fd = try open("\(root)/in/link", root: root, openat2: true).get()
        close(fd)
        #expect(throws: FileAccess.Failure.symlink) { try open("\(root)/in/link", root: root, openat2: false).get() }
        #expect(throws: FileAccess.Failure.symlink) { try open("\(root)/in/away/b.txt", root: root, openat2: false).get() }
    }

    @Test func foldersAreCreatedOnlyInside() throws {
        let root = try tree()
        let fd = try FileAccess.createDirectories("\(root)/in/new/deeper", in: .within(["\(root)/in"]))
        close(fd)
        var isDir: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: "\(root)/in/new/deeper", isDirectory: &isDir) && isDir.boolValue)
        #expect(throws: FileAccess.Failure.self) { try FileAccess.createDirectories("\(root)/in/away/new", in: .within(["\(root)/in"])) }
        #expect(!FileManager.default.fileExists(atPath: "\(root)/out/new"))
    }
}

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

    @Test func modernSessionsNeverWaitForRoots() async {
        let policy = SessionPolicy()
        // A 2026-07-28 client that declares roots: the revision deprecates them and lets no server ask.
        policy.clientInitialized(ClientSession(dialect: MCPDialect.name, capabilities: ["roots": ["listChanged": true]],
                                               protocolVersion: "2026-07-28"))
        #expect(policy.policyFacts?["read"] != "pending")
        let p = await policy.policy()
        #expect(p.origin == "working-directory" && p.replace == .never && p.urls == .public)
    }
}
