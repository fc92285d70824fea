import JSONRPC
import JSONRPCTransport
import Synchronization

/// One request's `notifications/progress` for its `progressToken`. MCP wants values that only
/// increase; updates closer than `minimumInterval` are dropped unless they complete the total, so a
/// batch of thousands does not flood the host. Items without a count advance the value by one.
///
/// A message at the same count (a batch saying how far a clip inside it is, `BatchHeartbeat`) goes out at a value
/// between it and the next whole count (count + 1/2, + 2/3, + 3/4, ...): still increasing, never reaching the next
/// item's; a message at the total is not sent (the value would pass it).
final class MCPProgressReporter: ProgressReporter {
    private struct State {
        var lastValue = 0.0
        var lastAt: ContinuousClock.Instant?
        var items = 0
        /// Messages sent at the last whole count.
        var beats = 0
    }

    let token: JSONValue
    let minimumInterval: Duration
    private let state = Mutex(State())

    init(token: JSONValue, minimumInterval: Duration = .milliseconds(50)) {
        self.token = token
        self.minimumInterval = minimumInterval
    }

    func notification(done: Int?, total: Int?, message: String?) -> (method: String, params: JSONValue)? {
        let now = ContinuousClock.now
        let value: Double? = state.withLock { s in
            var value: Double
            if let done {
                value = Double(done)
            } else {
                s.items += 1
                value = Double(s.items)
            }
            let completes = total.map { value >= Double($0) } ?? false
            var beats = 0
            if value <= s.lastValue {
                // Only a message at the count already reported moves on: the n-th to count + 1 - 1/(n + 1), ever
                // closer to the next count and never at it (halving the way would reach it in about fifty).
                // At the total there is no next count to approach: MCP's progress never passes its total.
                guard message != nil, value == s.lastValue.rounded(.down), total.map({ value < Double($0) }) ?? true else {
                    return nil
                }
                beats = s.beats + 1
                let count = value
                value = count + 1 - 1 / Double(beats + 1)
                guard value > s.lastValue, value < count + 1 else { return nil }
            }
            if let last = s.lastAt, now - last < minimumInterval, !completes { return nil }
            s.beats = beats
            s.lastValue = value
            s.lastAt = now
            return value
        }
        guard let value else { return nil }
        var params: [String: JSONValue] = ["progressToken": token, "progress": .double(value)]
        if let total { params["total"] = .int(total) }
        if let message { params["message"] = .string(message) }
        return ("notifications/progress", .object(params))
    }
}

extension MCPProgressReporter {
    /// The shared schema `MCPProgressParams` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("MCPProgressParams", #"""
            {
              "description": "Params of MCP's `notifications/progress`, sent in an MCP session for a tools/call that gave a progressToken.",
              "type": "object",
              "properties": {
                "progressToken": {"type": ["string", "integer"]},
                "progress": {"type": "number"},
                "total": {"type": "number"},
                "message": {"type": "string"}
              },
              "required": ["progressToken", "progress"],
              "additionalProperties": false
            }
            """#),
    ]
}
