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

extension CacheStatsMethod {
    static let contract: MethodContract = #"""
        {
          "params": [],
          "result": {
            "name": "CacheStats",
            "schema": {
              "type": "object",
              "properties": {
                "entries": {"type": "integer", "minimum": 0},
                "bytes": {"type": "integer", "minimum": 0},
                "capacityBytes": {"type": "integer", "minimum": 0},
                "hits": {"type": "integer", "minimum": 0},
                "misses": {"type": "integer", "minimum": 0},
                "evictions": {"type": "integer", "minimum": 0}
              },
              "required": ["entries", "bytes", "capacityBytes", "hits", "misses", "evictions"],
              "additionalProperties": false
            }
          }
        }
        """#
}

extension CacheClearMethod {
    static let contract: MethodContract = #"""
        {
          "params": [],
          "result": {
            "name": "CacheCleared",
            "schema": {
              "type": "object",
              "properties": {"cleared": {"type": "integer", "minimum": 0}},
              "required": ["cleared"],
              "additionalProperties": false
            }
          }
        }
        """#
}

extension CacheStatsMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Cache statistics", effects: .init(readOnly: true, destructive: false, openWorld: false))
}

extension CacheClearMethod: MCPToolMethod {
    // Only the worker's cache of decoded images, which refills itself: nothing of the user's is destroyed.
    static let tool = MCPTool(title: "Clear the cache", effects: .init(readOnly: false, destructive: false, openWorld: false))
}
