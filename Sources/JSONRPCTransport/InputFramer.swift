/// The reader's framer: NDJSON or Content-Length, forced or detected from the first bytes.
///
/// In auto mode the first line decides once for the whole session: a header line (`Name:` with a
/// token for a name, as `Content-Length:` or `Content-Type:`) selects LSP framing; anything else
/// (`{`, `[`, or garbage that then gets its parse error) selects NDJSON. A first byte of `{` or `[`
/// decides at once; otherwise the framer waits for the first line (at most
/// ``ContentLengthFramer/maxHeaderBytes``). White space before it is dropped.
public struct InputFramer: Sendable {
    // At most one is set; both nil while detecting. (Optionals, not an enum with payloads, so the
    // framers are mutated in place and their buffers are never copied on write.)
    private var lines: LineFramer?
    private var lsp: ContentLengthFramer?
    private let maxMessageBytes: Int
    /// Auto mode: the start of the first line, until it shows which framing it is.
    private var undecided: [UInt8] = []

    /// The framing in force, once known (at once when forced).
    public var framing: MessageFraming? {
        lines != nil ? .ndjson : lsp != nil ? .contentLength : nil
    }

    /// - Parameters:
    ///   - framing: the framing to use, or nil to detect it.
    ///   - maxMessageBytes: the cap on one message (a line, or a Content-Length body).
    public init(framing: MessageFraming?, maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
        if let framing { select(framing) }
    }

    private mutating func select(_ framing: MessageFraming) {
        switch framing {
        case .ndjson: lines = LineFramer(maxLineBytes: maxMessageBytes)
        case .contentLength: lsp = ContentLengthFramer(maxMessageBytes: maxMessageBytes)
        }
    }

    /// Feeds a chunk of input; calls `emit` for every event it completes.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, emit: (FrameEvent) -> Void) {
        var chunk = chunk
        if framing == nil {
            if undecided.isEmpty {
                guard let first = chunk.firstIndex(where: { !Self.isSpace($0) }) else { return }
                chunk = UnsafeRawBufferPointer(rebasing: chunk[first...])
            }
            let newline = chunk.firstIndex(of: 0x0A)
            undecided.append(contentsOf: chunk[..<(newline ?? chunk.endIndex)])
            guard let decided = Self.decide(undecided, lineComplete: newline != nil) else { return }
            select(decided)
            // The bytes held back go first, then the rest of this chunk.
            let held = undecided
            undecided = []
            held.withUnsafeBytes { feedSelected($0, emit: emit) }
            chunk = UnsafeRawBufferPointer(rebasing: chunk[(newline ?? chunk.endIndex)...])
        }
        feedSelected(chunk, emit: emit)
    }

    private mutating func feedSelected(_ chunk: UnsafeRawBufferPointer, emit: (FrameEvent) -> Void) {
        lines?.feed(chunk, emit: emit)
        lsp?.feed(chunk, emit: emit)
    }

    /// End of input.
    public mutating func finish(emit: (FrameEvent) -> Void) {
        if framing == nil && !undecided.isEmpty {
            select(Self.decide(undecided, lineComplete: true) ?? .ndjson)
            let held = undecided
            undecided = []
            held.withUnsafeBytes { feedSelected($0, emit: emit) }
        }
        lines?.finish(emit: emit)
        lsp?.finish(emit: emit)
    }

    /// The framing the start of the first line shows, or nil while it could still be either.
    private static func decide(_ start: [UInt8], lineComplete: Bool) -> MessageFraming? {
        guard let first = start.first else { return lineComplete ? .ndjson : nil }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return .ndjson }
        for b in start {
            if b == UInt8(ascii: ":") { return .contentLength }
            if !isTokenByte(b) { return .ndjson }
        }
        // Only name characters so far: wait for the colon, within a header's length.
        return lineComplete || start.count >= ContentLengthFramer.maxHeaderBytes ? .ndjson : nil
    }

    /// RFC 9110 token characters (header field names).
    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(b)
        }
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
}
