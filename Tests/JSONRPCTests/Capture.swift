import Foundation
@testable import JSONRPC
import JSONRPCTransport
import Logging
import Synchronization
import Testing

import Glibc

/// The read end of a pipe the writer under test writes to.
final class Capture: Sendable {
    let writer: MessageWriter
    /// The write end, for a server that makes its own writer.
    let writeFD: Int32
    private let readFD: Int32
    private let pending = Mutex<[UInt8]>([])

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        readFD = fds[0]
        writeFD = fds[1]
        writer = MessageWriter(fd: fds[1])
        _ = fcntl(readFD, F_SETFL, fcntl(readFD, F_GETFL) | O_NONBLOCK)
    }

    /// Every message written so far (after a flush), parsed.
    func messages() async throws -> [JSONValue] {
        await writer.flush()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var bytes = pending.withLock { p in defer { p = [] }; return p }
        while true {
            let n = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress!, $0.count) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        var out: [JSONValue] = []
        for line in bytes.split(separator: 0x0A) where !line.isEmpty {
            out.append(try JSONParser.parse(Array(line)))
        }
        return out
    }
}
