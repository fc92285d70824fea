import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// URL sources against a local HTTP server the test starts on 127.0.0.1.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct URLSourceTests {
    @Test func fetchesDecodesAndReportsHTTPErrors() async throws {
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: Corpus.photo("rocket.jpg"))))
        let server = try LocalHTTPServer(routes: [
            "/rocket.jpg": .body(status: 200, contentType: "image/jpeg", bytes: photo),
            "/moved": .redirect(to: "/rocket.jpg"),
            "/loop": .redirect(to: "/loop"),
            "/endless": .endless,
            "/silent": .silence,
            "/huge": .body(status: 200, contentType: "image/jpeg", bytes: [UInt8](repeating: 0, count: 300_000)),
        ])
        let w = try WorkerProcess(["--max-fetch-bytes", "200000", "--fetch-timeout", "1"])
        let ok = try #require(try await w.call(1, "image.info", ["source": ["url": .string(server.url("/rocket.jpg"))]])["result"])
        #expect(ok["width"] == 640)
        let moved = try #require(try await w.call(2, "image.palette", ["source": ["url": .string(server.url("/moved"))], "count": 3])["result"])
        #expect(moved["colors"] != nil)

        let missing = try await w.call(3, "image.info", ["source": ["url": .string(server.url("/missing"))]])
        #expect(missing["error"]?["code"] == -32004)
        #expect(missing["error"]?["data"]?["status"] == 404)
        for (id, path) in [(4, "/loop"), (5, "/endless"), (6, "/silent"), (7, "/huge")] {
            let r = try await w.call(id, "image.info", ["source": ["url": .string(server.url(path))]])
            #expect(r["error"]?["code"] == -32004, "\(path): \(r)")
        }
        let closed = try await w.call(8, "image.info", ["source": ["url": "http://127.0.0.1:1/x.jpg"]])
        #expect(closed["error"]?["code"] == -32004)
        #expect(try await w.call(9, "ping")["result"] == [:])
    }
}
