import Foundation
import Synchronization

import Glibc

/// A tiny HTTP/1.1 server on 127.0.0.1 for URL-source tests; routes are fixed by the tests.
/// It serves each connection on its own thread and stops when deallocated (the listening
/// socket is closed).
package final class LocalHTTPServer: Sendable {
    package enum Response: Sendable {
        case body(status: Int, contentType: String, bytes: [UInt8])
        case redirect(to: String)
        /// Accept and never answer.
        case silence
        /// Stream zeros forever without a Content-Length.
        case endless
        /// 200 with the request's own head (request line and headers) as the body.
        case echoRequest
    }

    package let port: Int
    /// The loopback address it listens on (127.0.0.2 stands in for a public server in URL-policy tests).
    package let host: String
    private let listener: Int32
    private let routes: [String: Response]
    /// One element per connection accepted (tests wait on it instead of sleeping).
    package let accepted: AsyncStream<Void>
    /// Connections accepted so far: every one is counted before it is served, so once a worker has answered a
    /// request, this counts every fetch the request made.
    package var connections: Int { connectionCount.value.load(ordering: .acquiring) }
    private let connectionCount = Counter()

    /// When each connection was closed by its client before its request was whole, or while a `.silence` route kept
    /// it waiting, stamped on the serving thread as it saw the close:
    /// a busy test process may resume an awaiting task seconds late, but this stamp is taken before any of that.
    package var hangUps: [ContinuousClock.Instant] { hangUpTimes.value.withLock { $0 } }
    private let hangUpTimes = HangUps()

    /// A reference the accepting thread shares with the server (an `Atomic` itself cannot be captured).
    private final class Counter: Sendable { let value = Atomic<Int>(0) }
    private final class HangUps: Sendable {
        let value = Mutex<[ContinuousClock.Instant]>([])
        /// Stamps a client's close now, on the serving thread.
        func record() {
            let now = ContinuousClock.now
            value.withLock { $0.append(now) }
        }
    }

    package init(routes: [String: Response], host: String = "127.0.0.1") throws {
        self.routes = routes
        self.host = host
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        listener = fd
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr(host)
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        port = Int(UInt16(bigEndian: addr.sin_port))
        let listener = listener
        let routes = routes
        let (accepted, acceptedContinuation) = AsyncStream.makeStream(of: Void.self)
        self.accepted = accepted
        let count = connectionCount
        let hangUps = hangUpTimes
        Thread.detachNewThread {
            while true {
                let fd = accept(listener, nil, nil)
                if fd < 0 {
                    if errno == EINTR { continue }
                    acceptedContinuation.finish()
                    return
                }
                count.value.add(1, ordering: .releasing)
                acceptedContinuation.yield()
                Thread.detachNewThread { LocalHTTPServer.serve(fd, routes: routes, hangUps: hangUps) }
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    package func url(_ path: String) -> String { "http://\(host):\(port)\(path)" }

    private static func serve(_ fd: Int32, routes: [String: Response], hangUps: HangUps) {
        defer { close(fd) }
        var request: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n <= 0 {
                hangUps.record()  // closed before its request was whole (a fetch cancelled while it connected)
                return
            }
            request.append(contentsOf: buf[0..<n])
        }
        let line = String(decoding: request.prefix { $0 != 0x0D }, as: UTF8.self)
        let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        switch routes[path] ?? .body(status: 404, contentType: "text/plain", bytes: Array("not found".utf8)) {
        case .body(let status, let type, let bytes):
            send(fd, "HTTP/1.1 \(status) X\r\nContent-Type: \(type)\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n")
            sendBytes(fd, bytes)
        case .redirect(let to):
            send(fd, "HTTP/1.1 302 Found\r\nLocation: \(to)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        case .silence:
            var b = [UInt8](repeating: 0, count: 16)
            _ = b.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }  // until the client gives up
            hangUps.record()
        case .endless:
            send(fd, "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nConnection: close\r\n\r\n")
            let chunk = [UInt8](repeating: 0xFF, count: 1 << 16)
            while sendBytes(fd, chunk) {}
        case .echoRequest:
            send(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(request.count)\r\nConnection: close\r\n\r\n")
            sendBytes(fd, request)
        }
    }

    @discardableResult
    private static func send(_ fd: Int32, _ s: String) -> Bool { sendBytes(fd, Array(s.utf8)) }

    @discardableResult
    private static func sendBytes(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            off += n
        }
        return true
    }
}

extension [UInt8] {
    fileprivate var containsHeaderEnd: Bool {
        count >= 4 && (0...(count - 4)).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
    }
}
