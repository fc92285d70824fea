import Foundation
import JSONRPC
import PhotoWorkerTestSupport
import Testing

/// `--urls public` (MCP sessions' default) and `--urls none`, through the real binary. The tests'
/// servers all live on loopback, so 127.0.0.2 stands in for a public address and names come from
/// the worker's test resolver (`PHOTOWORKER_TEST_RESOLVE`, `PHOTOWORKER_TEST_PUBLIC_ADDRESSES`).
@Suite(.timeLimit(TestTiming.minutes(2)))
struct URLPolicyTests {
    static let refusedHosts = [
        "127.0.0.1", "localhost", "[::1]", "[::ffff:127.0.0.1]", "169.254.169.254", "10.1.2.3", "172.16.0.1",
        "192.168.1.1", "100.64.0.1", "0.0.0.0", "[::]", "[fe80::1]", "[fc00::1]", "[ff02::1]", "224.0.0.1",
        "evil.test",  // a public-looking name that resolves to 127.0.0.1
    ]

    private static func environment(extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["PHOTOWORKER_TEST_RESOLVE"] = "evil.test=127.0.0.1,photos.test=127.0.0.2,rebind.test=127.0.0.2|127.0.0.1"
        env["PHOTOWORKER_TEST_PUBLIC_ADDRESSES"] = "127.0.0.2"
        return env.merging(extra) { _, new in new }
    }

    private static func session(mcp: Bool, urls: String? = nil) async throws -> PolicySession {
        try await PolicySession.start(mcp: mcp, arguments: urls.map { ["--urls", $0] } ?? [], environment: environment())
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

    @Test(arguments: [false, true])
    func publicHostsAreFetchedAndRedirectsToPrivateOnesRefused(mcp: Bool) async throws {
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: Corpus.photo("girl-1.jpg"))))
        let privateServer = try LocalHTTPServer(routes: ["/photo.jpg": .body(status: 200, contentType: "image/jpeg", bytes: photo)])
        let server = try LocalHTTPServer(routes: [
            "/photo.jpg": .body(status: 200, contentType: "image/jpeg", bytes: photo),
            "/to-private": .redirect(to: privateServer.url("/photo.jpg")),
            "/to-evil": .redirect(to: "http://evil.test:\(privateServer.port)/photo.jpg"),
            "/to-public": .redirect(to: "/photo.jpg"),
        ], host: "127.0.0.2")
        let s = try await Self.session(mcp: mcp, urls: mcp ? nil : "public")
        let port = server.port
        #expect(try await info(s, "http://photos.test:\(port)/photo.jpg") == .ok)
        #expect(try await info(s, "http://127.0.0.2:\(port)/photo.jpg") == .ok)
        #expect(try await info(s, "http://photos.test:\(port)/to-public") == .ok)
        #expect(try await info(s, "http://photos.test:\(port)/to-private") == .denied("non-public-address"))
        #expect(try await info(s, "http://photos.test:\(port)/to-evil") == .denied("non-public-address"))
        // The name answers 127.0.0.2 to the first lookup and 127.0.0.1 afterwards: the check the
        // fetch makes passes, the guard's own lookup at the connection does not.
        #expect(try await info(s, "http://rebind.test:\(port)/photo.jpg") == .denied("non-public-address"))
    }

    @Test(arguments: [false, true])
    func urlsNoneRefusesEveryURL(mcp: Bool) async throws {
        let s = try await Self.session(mcp: mcp, urls: "none")
        #expect(try await info(s, "http://photos.test:9/photo.jpg") == .denied("urls-disabled"))
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
