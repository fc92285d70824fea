/// Cache hints (`ttlMs`) of the results MCP 2026-07-28 lets clients cache.
enum MCPCacheHints {
    /// The tools and the discovery result change only with a new worker binary, which is a new process: an hour
    /// keeps a host from asking again and again without holding a stale list across an upgrade for long.
    static let processLifetimeMs = 3_600_000
}
