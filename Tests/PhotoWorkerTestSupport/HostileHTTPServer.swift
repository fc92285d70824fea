import Foundation
import Synchronization

import Glibc

/// A misbehaving HTTP server on 127.0.0.1 for URL-source tests; the path picks the behaviour:
/// `/silent` accepts and never answers, `/endless` streams a body that never ends (no length),
/// `/trickle` sends one byte every 100 ms forever, `/huge` declares a 10 GB Content-Length,
/// `/missing` answers 404, `/loop` redirects to itself, anything else gets a 0-byte 200.
/// Connection threads end when `stop()` is called or the peer goes away.
package final class HostileHTTPServer: Sendable {
    package let port: UInt16
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    /// Connections accepted so far (to prove the worker really talked to us).
    package let connections = Atomic<Int>(0)

    package init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting and ends every connection.
    package func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            connections.add(1, ordering: .relaxed)
            Thread.detachNewThread { [self] in
                serve(client)
                close(client)
            }
        }
    }

    /// Writes everything; false once the peer is gone (MSG_NOSIGNAL: no SIGPIPE in the test runner).
    private func write(_ fd: Int32, _ text: String) -> Bool { write(fd, Array(text.utf8)) }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private func pause(_ ms: Int) -> Bool {
        usleep(useconds_t(ms * 1000))
        return !stopped.load(ordering: .relaxed)
    }

    private func serve(_ fd: Int32) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.contains(0x0A) || !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { return }
            request += buffer[0..<n]
        }
        let line = String(decoding: request, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        switch path {
        case "/silent":
            while pause(50) {}
        case "/endless":
            guard write(fd, "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n") else { return }
            let chunk = [UInt8](repeating: 0x42, count: 1 << 16)
            while !stopped.load(ordering: .relaxed) && write(fd, chunk) {}
        case "/trickle":
            guard write(fd, "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n") else { return }
            while pause(100) && write(fd, [0x89]) {}
        case "/huge":
            guard write(fd, "HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\nConnection: close\r\n\r\n") else { return }
            let chunk = [UInt8](repeating: 0, count: 1 << 16)
            while !stopped.load(ordering: .relaxed) && write(fd, chunk) {}
        case "/missing":
            _ = write(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        case "/loop":
            _ = write(fd, "HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        default:
            _ = write(fd, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
    }
}
