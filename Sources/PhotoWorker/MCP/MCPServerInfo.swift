import JSONRPC
import JSONRPCTransport

/// Who the worker is to MCP hosts: `serverInfo` of `initialize`, and `_meta["io.modelcontextprotocol/serverInfo"]`
/// of every 2026-07-28 result. Title, description and icons are 2025-11-25's `Implementation` fields.
enum MCPServerInfo {
    /// A 48x48 PNG (a round sticker cut from a sunset), drawn by clients/mcp/make_icon.py.
    static let iconPNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAADAAAAAwCAYAAABXAvmHAAABvUlEQVR42u2abStEQRTH9xP5DL6FT6BYD4vVuh62tVrrYVtbkpKUpCTfRERE5CkiIiLi5dWoW5ruzJwzc2ZmL/fU79055/5/r+7emc1k0voDFWpWYoN7FwktVVME/2q0S/EmInvg51yHFs4kRA/5qGdJsCoRt/i91m0Fcom4hW+zOauQScQtep3pd4KxRNyCl6m8U4wk+MHnasELWgL80NNk4BW0BD/wWBnxCkqAb36YKJISXgRCpHNQCb7xvlwiQxY+QjgLEeCb7sbLZEDCRwh3qCT4httShQyMgHAHVuCmWCUDIyDcgRG4HpsmBSMg3QMVuBqtkYIRkO6BClwO10nBCEj3QAXOgwYpGAHpHqjA2dA8OZDwyh1QgdPCwg8trW1Kol4IsvCgeajAyeAiKHwE63cBWAAT/jfH+SWroF5kuhJHA8tWQL+JdQUYh30r5DgVYBzkVknR+kVqKsHY710zRvt7gEKAsdezboTRVxmVxG7XhhbG38RUAhE72U0wrJ/kZIJaYrtzS4l2eNHBFrWECiunc4kJ71PCyQl1YsKrLjhsBnd2S2Mi0lT3ZFCZxNxW/qv74vSvBml5rG/ojIoPeC4YlQAAAABJRU5ErkJggg=="

    static let icons: JSONValue = [["src": .string(iconPNG), "mimeType": "image/png", "sizes": ["48x48"]]]

    static let description = "Photo tools on this machine: image info, conversion, thumbnails, palettes, sticker cut-outs, batches and sticker-pack sheets."

    static func implementation(_ server: ServerIdentity) -> JSONValue {
        ["name": .string(server.name), "title": "PhotoWorker", "version": .string(server.version),
         "description": .string(description), "icons": icons]
    }

    /// The worker's own identity (the server's configuration names it the same way).
    static var worker: ServerIdentity { ServerIdentity(name: "photoworker", version: Worker.version) }
}
