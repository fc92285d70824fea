import Deadlines
import Foundation
@testable import PhotoWorker
import PhotoWorkerTestSupport
import Testing

/// The fetcher in process, with the test resolver the shipped binary cannot turn on: names answered
/// with loopback addresses, and 127.0.0.2 standing in for a public one.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct URLFetcherTests {
    static let hooks = URLFetcher.TestHooks(
        hosts: ["evil.test": "127.0.0.1", "photos.test": "127.0.0.2"], publicAddresses: ["127.0.0.2"])
    /// The blocking pool the fetches run on, as the worker's loader hands its own to its fetcher.
    static let pool = BlockingPool(threads: 4, name: "test-fetch")
    static let photo = Array(try! Data(contentsOf: URL(fileURLWithPath: Corpus.photo("girl-1.jpg"))))

    private func outcome(_ fetcher: URLFetcher, _ url: String, policy: URLPolicy) async -> String {
        do {
            let bytes = try await fetcher.fetch(URL(string: url)!, policy: policy)
            return bytes == Self.photo ? "ok" : "wrong bytes (\(bytes.count))"
        } catch WorkerError.urlRefused(_, let rule, _) {
            return rule
        } catch {
            return "\(error)"
        }
    }

    @Test func publicHostsAreFetchedAndRedirectsToPrivateOnesRefused() async throws {
        let privateServer = try LocalHTTPServer(routes: ["/photo.jpg": .body(status: 200, contentType: "image/jpeg", bytes: Self.photo)])
        let server = try LocalHTTPServer(routes: [
            "/photo.jpg": .body(status: 200, contentType: "image/jpeg", bytes: Self.photo),
            "/to-private": .redirect(to: privateServer.url("/photo.jpg")),
            "/to-evil": .redirect(to: "http://evil.test:\(privateServer.port)/photo.jpg"),
            "/to-public": .redirect(to: "/photo.jpg"),
        ], host: "127.0.0.2")
        let fetcher = URLFetcher(maxBytes: 10 << 20, timeout: .seconds(20), testHooks: Self.hooks, blocking: Self.pool)
        let port = server.port
        for (url, expected) in [
            ("http://photos.test:\(port)/photo.jpg", "ok"), ("http://127.0.0.2:\(port)/photo.jpg", "ok"),
            ("http://photos.test:\(port)/to-public", "ok"), ("http://photos.test:\(port)/to-private", "non-public-address"),
            ("http://photos.test:\(port)/to-evil", "non-public-address"),
            ("http://evil.test:\(privateServer.port)/photo.jpg", "non-public-address"),
        ] {
            let got = await outcome(fetcher, url, policy: .public)
            #expect(got == expected, "\(url): \(got)")
        }
        // The refusal names the host and the address it resolved to.
        do {
            _ = try await fetcher.fetch(URL(string: "http://evil.test:\(privateServer.port)/photo.jpg")!, policy: .public)
            Issue.record("evil.test was fetched")
        } catch WorkerError.urlRefused(let url, _, let reason) {
            #expect(url == "http://evil.test:\(privateServer.port)/photo.jpg")
            #expect(reason.hasPrefix("evil.test resolves to 127.0.0.1, a loopback address"), "\(reason)")
        }
    }

    /// Each fetch keeps its own refusal: many fetches of one host at once, half under `public` (refused)
    /// and half under `any` (fetched), each get their own answer (a table keyed by host and port, as the
    /// SOCKS guard had, could hand one fetch's refusal to another).
    @Test func concurrentFetchesOfOneHostEachGetTheirOwnAnswer() async throws {
        let server = try LocalHTTPServer(routes: ["/photo.jpg": .body(status: 200, contentType: "image/jpeg", bytes: Self.photo)])
        let fetcher = URLFetcher(maxBytes: 10 << 20, timeout: .seconds(30), testHooks: Self.hooks, blocking: Self.pool)
        let url = server.url("/photo.jpg")
        let answers = await withTaskGroup(of: (Int, String).self) { group in
            for i in 0..<24 {
                group.addTask { (i, await self.outcome(fetcher, url, policy: i % 2 == 0 ? .public : .any)) }
            }
            var all: [Int: String] = [:]
            for await (i, got) in group { all[i] = got }
            return all
        }
        for i in 0..<24 {
            #expect(answers[i] == (i % 2 == 0 ? "non-public-address" : "ok"), "fetch \(i): \(answers[i] ?? "none")")
        }
    }

    /// A redirect may lead only to http or https: never to a local file or another protocol libcurl speaks.
    @Test func redirectsToOtherSchemesAreRefused() async throws {
        let server = try LocalHTTPServer(routes: [
            "/to-file": .redirect(to: "file:///etc/passwd"), "/to-ftp": .redirect(to: "ftp://127.0.0.1/x.jpg"),
            "/to-gopher": .redirect(to: "gopher://127.0.0.1/x"),
        ])
        let fetcher = URLFetcher(maxBytes: 1 << 20, timeout: .seconds(20), blocking: Self.pool)
        for path in ["/to-file", "/to-ftp", "/to-gopher"] {
            do {
                let bytes = try await fetcher.fetch(URL(string: server.url(path))!, policy: .any)
                Issue.record("\(path) was followed: \(bytes.count) bytes")
            } catch WorkerError.fetchFailed(_, _, let reason) {
                #expect(reason == "redirect to a non-http(s) URL", "\(path): \(reason)")
            }
        }
    }

    /// Requests say who they are (some image hosts refuse clients without a User-Agent).
    @Test func requestsCarryAUserAgent() async throws {
        let server = try LocalHTTPServer(routes: ["/echo": .echoRequest])
        let bytes = try await URLFetcher(maxBytes: 1 << 20, timeout: .seconds(20), blocking: Self.pool).fetch(URL(string: server.url("/echo"))!, policy: .any)
        let head = String(decoding: bytes, as: UTF8.self)
        #expect(head.contains("\r\nUser-Agent: photoworker/\(Worker.version)\r\n"), "\(head)")
    }

    @Test func aCancelledFetchEndsAtOnce() async throws {
        let server = try LocalHTTPServer(routes: ["/silent": .silence])
        let fetcher = URLFetcher(maxBytes: 1 << 20, timeout: .seconds(600), blocking: Self.pool)
        let task = Task { try await fetcher.fetch(URL(string: server.url("/silent"))!, policy: .any) }
        // Cancel once the server has the connection (the fetch is then sending its request or waiting in poll for an
        // answer: either way it closes the connection when it ends).
        var accepted = server.accepted.makeAsyncIterator()
        _ = await accepted.next()
        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await Deadline.value(of: task, "the cancelled fetch to end") }
        // The transfer's end is timed where it happens, at the server, when libcurl closes the connection: the
        // awaiting task may resume late when other suites keep the cooperative threads busy (once, 10.5 s).
        // The cancel wakes libcurl's poll (its one-second tick would too): the transfer ends long before its 600 s
        // timeout, and 5 s leaves room for a loaded machine.
        #expect(await eventually { !server.hangUps.isEmpty }, "libcurl kept the connection open")
        let closed = try #require(server.hangUps.first)
        #expect(closed - start < .seconds(5), "the connection closed \(closed - start) after the cancel")
    }
}
