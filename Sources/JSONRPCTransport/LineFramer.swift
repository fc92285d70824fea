/// Splits a byte stream into lines: `\n` separated, trailing `\r` tolerated, blank lines ignored,
/// lines over `maxLineBytes` discarded to their newline (reported, never buffered whole).
public struct LineFramer: Sendable {
    public let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var discarding = false
    private var discardedCount = 0

    public init(maxLineBytes: Int) {
        self.maxLineBytes = max(1, maxLineBytes)
    }

    /// Feeds a chunk of input; calls `emit` for every event it completes.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, emit: (FrameEvent) -> Void) {
        let bytes = chunk.bindMemory(to: UInt8.self)
        var start = 0
        while start < bytes.count {
            // memchr for speed on long lines.
            let remaining = bytes.count - start
            let base = bytes.baseAddress! + start
            let hit = memchrIndex(base, remaining)
            let end = hit.map { start + $0 } ?? bytes.count
            let segment = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if discarding {
                discardedCount += segment.count
            } else if buffer.count + segment.count > maxLineBytes {
                discarding = true
                discardedCount = buffer.count + segment.count
                buffer = []
            } else {
                buffer.append(contentsOf: segment)
            }
            guard hit != nil else { return }
            completeLine(emit: emit)
            start = end + 1
        }
    }

    /// End of input: a final line without a newline still counts.
    public mutating func finish(emit: (FrameEvent) -> Void) {
        if discarding || !buffer.isEmpty { completeLine(emit: emit) }
    }

    private mutating func completeLine(emit: (FrameEvent) -> Void) {
        if discarding {
            emit(.overlong(byteCount: discardedCount))
            discarding = false
            discardedCount = 0
            buffer = []
            return
        }
        if buffer.last == 0x0D { buffer.removeLast() }
        if !buffer.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            emit(.message(buffer))
        }
        buffer.removeAll(keepingCapacity: buffer.count <= 1 << 16)
    }

    private func memchrIndex(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        guard let r = memchr(p, 0x0A, n) else { return nil }
        return UnsafeRawPointer(r) - UnsafeRawPointer(p)
    }
}

import Glibc
