/// The one rule for whether a cancelled request still gets its final response.
///
/// JSON-RPC's and LSP's way: a cancelled request is answered -32800, so every request has exactly one final
/// response (`$/cancelRequest`, `jobs.cancel`, a task's cancel). A dialect may say otherwise for its own cancel
/// notification in a session that speaks it: MCP's `notifications/cancelled` means the client wants no response
/// at all. Even then a member of a batch is answered, so its batch completes.
enum CancelRule {
    /// Whether the request is answered when the notification `method` (nil: not a notification, e.g.
    /// `jobs.cancel`) cancels it in a session speaking `sessionDialect`, its reply going to `sink`.
    static func answers(cancelledBy method: String?, sessionDialect: (any ProtocolDialect)?, sink: ReplySink) -> Bool {
        guard let method, let dialect = sessionDialect, dialect.cancelNotification.method == method else { return true }
        if case .direct = sink { return false }
        return true
    }
}
