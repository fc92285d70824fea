/// What a framer found in the input stream. 
public enum FrameEvent: Sendable, Equatable {
    /// One complete message's bytes: a line without its `\n` (and without a trailing `\r`; never blank),
    /// or a Content-Length body.
    case message([UInt8])
    /// A message longer than the limit was discarded (a line up to its newline, a Content-Length
    /// body as it streamed past); carries its length.
    case overlong(byteCount: Int)
    /// Content-Length framing only: a header block that cannot be used (what is wrong, in words).
    case malformed(reason: String)
}
