import JSONRPCTransport

/// The counters since start, under the name the application gives it (the worker's `worker.stats`;
/// ``ServerConfiguration/Builtins/statsMethod``).
struct StatsMethod: RPCMethod {
    static let name = "stats"
    static let cost = MethodCost.immediate
    static let summary = "Counters: received, completed, failed, cancelled, running, queued, uptime, peak RSS."

    struct Result: Encodable, Sendable {
        var received: Int
        var completed: Int
        var failed: Int
        var cancelled: Int
        var running: Int
        var queued: Int
        var uptimeSeconds: Double
        var peakRSSBytes: Int
        /// What the session may touch (the application's ``SessionDelegate/policyFacts``).
        var policy: JSONValue?
    }

    let registry: RequestRegistry
    let stats: ServerStats
    let delegate: (any SessionDelegate)?

    func handle(_ params: NoParams, context: RequestContext) async throws -> Result {
        let counts = await registry.counts
        let (received, completed, failed, cancelled) = await (stats.received, stats.completed, stats.failed, stats.cancelled)
        return Result(
            received: received, completed: completed, failed: failed, cancelled: cancelled,
            running: max(0, counts.running - 1),  // not counting this request
            queued: counts.queued, uptimeSeconds: (stats.uptimeSeconds * 1000).rounded() / 1000,
            peakRSSBytes: ServerStats.peakRSSBytes, policy: delegate?.policyFacts)
    }
}

extension StatsMethod {
    static let contract: MethodContract = #"""
        {
          "params": [],
          "result": {
            "name": "WorkerStats",
            "schema": {
              "type": "object",
              "properties": {
                "received": {"type": "integer", "minimum": 0},
                "completed": {"type": "integer", "minimum": 0},
                "failed": {"type": "integer", "minimum": 0},
                "cancelled": {"type": "integer", "minimum": 0},
                "running": {"type": "integer", "minimum": 0},
                "queued": {"type": "integer", "minimum": 0},
                "uptimeSeconds": {"type": "number", "minimum": 0},
                "peakRSSBytes": {"type": "integer", "minimum": 0},
                "policy": {"$ref": "#/components/schemas/SessionPolicy"}
              },
              "required": [
                "received",
                "completed",
                "failed",
                "cancelled",
                "running",
                "queued",
                "uptimeSeconds",
                "peakRSSBytes"
              ],
              "additionalProperties": false
            }
          }
        }
        """#
}
