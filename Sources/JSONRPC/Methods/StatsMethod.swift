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
        /// The memory budget and what holds it now (absent without a budget).
        var memory: Memory?
    }

    struct Memory: Encodable, Sendable {
        /// The budget the jobs' estimates are admitted against.
        var budgetBytes: Int
        /// How the budget was chosen.
        var origin: String
        /// The estimates of the jobs running now.
        var reservedBytes: Int
        /// What holders outside jobs keep (the decoded-image cache), by name.
        var heldBytes: [String: Int]
        /// Jobs waiting because their estimate does not fit beside the running jobs'.
        var waitingForMemory: Int
    }

    let registry: RequestRegistry
    let stats: ServerStats
    let delegate: (any SessionDelegate)?

    func handle(_ params: NoParams, context: RequestContext) async throws -> Result {
        let counts = await registry.counts
        let memory = await registry.memory.map {
            Memory(budgetBytes: $0.budget.bytes, origin: $0.budget.origin, reservedBytes: $0.reservedBytes,
                   heldBytes: $0.budget.heldBytes, waitingForMemory: $0.waitingForMemory)
        }
        let (received, completed, failed, cancelled) = await (stats.received, stats.completed, stats.failed, stats.cancelled)
        return Result(
            received: received, completed: completed, failed: failed, cancelled: cancelled,
            running: max(0, counts.running - 1),  // not counting this request
            queued: counts.queued, uptimeSeconds: (stats.uptimeSeconds * 1000).rounded() / 1000,
            peakRSSBytes: ServerStats.peakRSSBytes, policy: delegate?.policyFacts, memory: memory)
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
                "policy": {"$ref": "#/components/schemas/SessionPolicy"},
                "memory": {
                  "type": "object",
                  "description": "The memory budget (--max-memory, or the default from the machine's or the container's memory) and what holds it.",
                  "properties": {
                    "budgetBytes": {"type": "integer", "minimum": 0},
                    "origin": {"type": "string", "description": "How the budget was chosen."},
                    "reservedBytes": {"type": "integer", "minimum": 0, "description": "The running jobs' estimates."},
                    "heldBytes": {
                      "type": "object",
                      "additionalProperties": {"type": "integer", "minimum": 0},
                      "description": "What holders outside jobs keep, by name (cache)."
                    },
                    "waitingForMemory": {"type": "integer", "minimum": 0}
                  },
                  "required": ["budgetBytes", "origin", "reservedBytes", "heldBytes", "waitingForMemory"],
                  "additionalProperties": false
                }
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
