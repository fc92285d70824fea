/// How messages are delimited on the wire.
///
/// The worker reads the framing from the first bytes of its input (``InputFramer``) and answers in
/// the framing it was spoken to (``MessageWriter/setFraming(_:)``).
public enum MessageFraming: String, Sendable, CaseIterable, Codable {
    /// One JSON text per line, `\n`-terminated (what scripts and the bundled clients speak).
    case ndjson
    /// LSP's base protocol: `Content-Length: N\r\n\r\n` then N bytes of JSON (what editors' stock
    /// JSON-RPC clients speak: Vim's `lsp` channel mode, Neovim's `vim.lsp.rpc`, Emacs' jsonrpc.el).
    case contentLength = "content-length"
}
