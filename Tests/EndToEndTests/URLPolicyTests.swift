import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// `--urls public` (MCP sessions' default) and `--urls none`, through the real binary, which has no test
/// hooks: every host here is refused for what it is. Public names, redirects and rebinding need a test
/// resolver, given to the fetcher in process (PhotoWorkerTests' URLFetcherTests).
@Suite(.timeLimit(TestTiming.minutes(10)))
struct URLPolicyTests {
    static let refusedHosts = [
        "127.0.0.1", "localhost", "[::1]", "[::ffff:127.0.0.1]", "169.254.169.254", "10.1.2.3", "172.16.0.1",
        "192.168.1.1", "100.64.0.1", "0.0.0.0", "[::]", "[fe80::1]", "[fc00::1]", "[ff02::1]", "224.0.0.1",
    ]

    private static func session(mcp: Bool, urls: String? = nil) async throws -> PolicySession {
        try await PolicySession.start(mcp: mcp, arguments: urls.map { ["--urls", $0] } ?? [])
    }

    private func info(_ s: PolicySession, _ url: String) async throws -> Outcome {
        try await s.call("image.info", ["source": ["url": .string(url)]])
    }

    @Test(arguments: [false, true])
    func privateLoopbackAndLinkLocalHostsAreRefused(mcp: Bool) async throws {
        let s = try await Self.session(mcp: mcp, urls: mcp ? nil : "public")
        for host in Self.refusedHosts {
            let got = try await info(s, "http://\(host):9/photo.jpg")
            #expect(got == .denied("non-public-address"), "\(host) (mcp: \(mcp)): \(got)")
        }
    }

    /// A redirect from an allowed server (plain session, `any`) is not policed; under `public` the same
    /// server, on loopback, is refused at its first connection.
    @Test func theRealBinaryRefusesLoopbackServersUnderPublic() async throws {
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: Corpus.photo("girl-1.jpg"))))
        let server = try LocalHTTPServer(routes: ["/photo.jpg": .body(status: 200, contentType: "image/jpeg", bytes: photo)])
        let s = try await Self.session(mcp: true)
        let got = try await info(s, server.url("/photo.jpg"))
        #expect(got == .denied("non-public-address"), "\(got)")
    }

    @Test(arguments: [false, true])
    func urlsNoneRefusesEveryURL(mcp: Bool) async throws {
        let s = try await Self.session(mcp: mcp, urls: "none")
        #expect(try await info(s, "http://photos.example:9/photo.jpg") == .denied("urls-disabled"))
        #expect(try await info(s, "https://example.com/photo.jpg") == .denied("urls-disabled"))
    }

    @Test func plainSessionsFetchLoopbackByDefault() async throws {
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: Corpus.photo("girl-1.jpg"))))
        let server = try LocalHTTPServer(routes: ["/photo.jpg": .body(status: 200, contentType: "image/jpeg", bytes: photo)])
        let s = try await Self.session(mcp: false)
        #expect(try await info(s, server.url("/photo.jpg")) == .ok)
        // An MCP client may still choose `any` for a local server it trusts.
        let m = try await Self.session(mcp: true, urls: "any")
        #expect(try await info(m, server.url("/photo.jpg")) == .ok)
    }
}
