import JSONRPC
import JSONRPCTransport

/// `cache.stats`: entries, bytes, capacity, hits, misses, evictions of the decoded-image cache.
struct CacheStatsMethod: RPCMethod {
    static let name = "cache.stats"
    static let cost = MethodCost.immediate
    static let summary = "Decoded-image cache counters."

    let services: WorkerServices

    func handle(_ params: NoParams, context: RequestContext) async throws -> ImageCache.Stats {
        await services.cache.stats()
    }
}

/// `cache.clear` -> `{"cleared": n}`.
struct CacheClearMethod: RPCMethod {
    static let name = "cache.clear"
    static let cost = MethodCost.immediate
    static let summary = "Drop every decoded image from the cache."

    struct Result: Encodable, Sendable {
        var cleared: Int
    }

    let services: WorkerServices

    func handle(_ params: NoParams, context: RequestContext) async throws -> Result {
        Result(cleared: await services.cache.clear())
    }
}
