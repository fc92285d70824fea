/// Splits a byte stream framed as in LSP's base protocol into message bodies:
/// header lines `Name: value` (names case-insensitive; `Content-Length` required, `Content-Type`
/// and others ignored), an empty line, then exactly `Content-Length` bytes.
///
/// Hostile input never makes it buffer more than the limits: a header block is capped at
/// ``maxHeaderBytes``; a body announced longer than `maxMessageBytes` is reported as
/// ``FrameEvent/overlong(byteCount:)`` and skipped as it streams past, never buffered.
/// After a malformed header block (no usable length) it resynchronises on the next line that
/// starts with `Content-Length:`. Header lines may end in CRLF (the protocol) or a bare LF.
public struct ContentLengthFramer: Sendable {
    /// Longest header block accepted (LSP headers are a few dozen bytes).
    public static let maxHeaderBytes = 8192

    public let maxMessageBytes: Int

    private enum State: Sendable {
        /// Reading header lines; `length` once a Content-Length was seen in this block; `error`
        /// once the block is known to be bad but its body's length is still known (a repeated
        /// Content-Length of the same value), so the body can be skipped exactly.
        case headers(length: Int?, seenAny: Bool, error: String? = nil)
        /// After a malformed block: dropping lines until one starts a new header.
        case seekingHeader
        /// Collecting a body of `remaining` more bytes.
        case body(remaining: Int)
        /// Discarding `remaining` more bytes of a body over the limit.
        case skipping(remaining: Int)
    }

    private var state: State = .headers(length: nil, seenAny: false, error: nil)
    /// The current header line (or body) being collected.
    private var pending: [UInt8] = []
    private var headerBytes = 0
    private var announced = 0

    public init(maxMessageBytes: Int) {
        self.maxMessageBytes = max(1, maxMessageBytes)
    }

    /// Feeds a chunk of input; calls `emit` for every event it completes.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, emit: (FrameEvent) -> Void) {
        let bytes = chunk.bindMemory(to: UInt8.self)
        var i = 0
        while i < bytes.count {
            switch state {
            case .body(let remaining):
                let n = min(remaining, bytes.count - i)
                pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<(i + n)]))
                i += n
                if n == remaining {
                    emit(.message(pending))
                    pending = []
                    state = .headers(length: nil, seenAny: false, error: nil)
                } else {
                    state = .body(remaining: remaining - n)
                }
            case .skipping(let remaining):
                let n = min(remaining, bytes.count - i)
                i += n
                state = n == remaining ? .headers(length: nil, seenAny: false, error: nil) : .skipping(remaining: remaining - n)
            case .headers, .seekingHeader:
                let byte = bytes[i]
                i += 1
                if byte == 0x0A {
                    endOfHeaderLine(emit: emit)
                    continue
                }
                if case .headers = state {
                    headerBytes += 1
                    if headerBytes > Self.maxHeaderBytes {
                        malformed("the header block exceeds \(Self.maxHeaderBytes) bytes", emit: emit)
                        continue
                    }
                }
                // While seeking, a line is kept only while it can still be a `Content-Length:` line.
                if case .seekingHeader = state, pending.count >= Self.contentLengthPrefix.count,
                   !Self.startsNewHeader(pending) || pending.count >= Self.maxHeaderBytes {
                    continue
                }
                pending.append(byte)
            }
        }
    }

    /// End of input: a message cut short is reported; a clean end between messages says nothing.
    public mutating func finish(emit: (FrameEvent) -> Void) {
        switch state {
        case .body(let remaining):
            emit(.malformed(reason: "the input ended \(remaining) bytes short of the \(announced) announced by Content-Length"))
        case .headers(let length, let seenAny, _):
            if seenAny || length != nil || !pending.allSatisfy(Self.isSpace) {
                emit(.malformed(reason: "the input ended inside a header block"))
            }
        case .skipping, .seekingHeader:
            break
        }
        state = .headers(length: nil, seenAny: false, error: nil)
        pending = []
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }

    private mutating func endOfHeaderLine(emit: (FrameEvent) -> Void) {
        var line = pending
        pending = []
        if line.last == 0x0D { line.removeLast() }
        switch state {
        case .seekingHeader:
            if Self.startsNewHeader(line) {
                state = .headers(length: nil, seenAny: false, error: nil)
                headerBytes = line.count
                headerLine(line, emit: emit)
            }
        case .headers(let length, let seenAny, let error):
            if line.isEmpty {
                // Blank lines before any header (between messages) are tolerated.
                guard seenAny else { headerBytes = 0; return }
                if let error, let length {
                    emit(.malformed(reason: error))
                    headerBytes = 0
                    state = length == 0 ? .headers(length: nil, seenAny: false, error: nil) : .skipping(remaining: length)
                    return
                }
                guard let length else {
                    malformed("the header block has no Content-Length", emit: emit)
                    // The blank line ended the bad block: whatever follows may be a new header.
                    state = .headers(length: nil, seenAny: false, error: nil)
                    return
                }
                headerBytes = 0
                announced = length
                if length > maxMessageBytes {
                    emit(.overlong(byteCount: length))
                    state = length == 0 ? .headers(length: nil, seenAny: false, error: nil) : .skipping(remaining: length)
                } else if length == 0 {
                    emit(.message([]))
                    state = .headers(length: nil, seenAny: false, error: nil)
                } else {
                    state = .body(remaining: length)
                }
            } else {
                headerLine(line, emit: emit)
            }
        case .body, .skipping:
            break
        }
    }

    /// One `Name: value` line of the current block.
    private mutating func headerLine(_ line: [UInt8], emit: (FrameEvent) -> Void) {
        guard case .headers(let length, _, let error) = state else { return }
        guard let colon = line.firstIndex(of: 0x3A) else {
            malformed("a header line has no colon: \"\(Self.preview(line))\"", emit: emit)
            return
        }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        let value = line[(colon + 1)...].drop(while: Self.isSpace).reversed().drop(while: Self.isSpace).reversed()
        guard name == "content-length" else {
            // Content-Type (and any other header) is accepted and ignored: bodies are UTF-8 JSON.
            state = .headers(length: length, seenAny: true, error: error)
            return
        }
        guard !value.isEmpty, value.count <= 18, value.allSatisfy({ (0x30...0x39).contains($0) }) else {
            let text = Self.preview(Array(value))
            malformed(value.count > 18 && value.allSatisfy({ (0x30...0x39).contains($0) })
                      ? "Content-Length \(text) is too large"
                      : "Content-Length must be a non-negative decimal integer, not \"\(text)\"", emit: emit)
            return
        }
        let n = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        if let length {
            // Refused either way; with one value the body can still be skipped exactly.
            guard length == n else {
                malformed("Content-Length is given twice, with different values (\(length) and \(n))", emit: emit)
                return
            }
            state = .headers(length: n, seenAny: true, error: "Content-Length is given twice")
            return
        }
        state = .headers(length: n, seenAny: true, error: error)
    }

    private mutating func malformed(_ reason: String, emit: (FrameEvent) -> Void) {
        emit(.malformed(reason: reason))
        state = .seekingHeader
        pending = []
        headerBytes = 0
    }

    private static let contentLengthPrefix = Array("content-length:".utf8)

    private static func startsNewHeader(_ line: [UInt8]) -> Bool {
        guard line.count >= contentLengthPrefix.count else { return false }
        // `| 0x20` lowercases ASCII letters and leaves '-' and ':' as they are.
        return zip(line, contentLengthPrefix).allSatisfy { ($0 | 0x20) == $1 }
    }

    private static func preview(_ bytes: [UInt8]) -> String {
        let s = String(decoding: bytes.prefix(40), as: UTF8.self)
        return bytes.count > 40 ? s + "..." : s
    }
}
