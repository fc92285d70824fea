import JSONRPC
import JSONRPCTransport

/// MCP 2026-07-28 `subscriptions/listen {"notifications": {...}}`: the worker's tools never change while it runs
/// and it has no resources or prompts, so there is nothing to subscribe to. It acknowledges with an empty filter
/// (`notifications/subscriptions/acknowledged`, the honored subset being none) and closes the stream gracefully at
/// once (the result), as the revision lets a server tear a subscription down; a host then knows not to wait for
/// change notifications. Without the envelope it is not a method (the legacy revisions have no such request).
struct SubscriptionsListenMethod: RPCMethod {
    static let name = "subscriptions/listen"
    static let cost = MethodCost.immediate
    static let summary = "MCP 2026-07-28: subscribe to change notifications (none: acknowledged empty, closed at once)."

    struct Params: Decodable, Sendable {
        var notifications: JSONValue?
        var _meta: JSONValue?
    }

    static let subscriptionIDKey = "io.modelcontextprotocol/subscriptionId"

    func handle(_ params: Params, context: RequestContext) async throws -> RawJSON {
        guard try MCPEnvelope.parse(meta: params._meta)?.isModern == true else {
            throw MCPEnvelope.methodNotFound(Self.name, "\(Self.name) is a 2026-07-28 request; send it with the request's envelope")
        }
        if let filter = params.notifications, filter != .null {
            guard case .object = filter else {
                throw RPCError.invalidParams(path: "notifications", "must be an object (the notification types wanted)")
            }
        }
        let subscription = context.id?.json ?? .null
        await context.notify(method: "notifications/subscriptions/acknowledged",
                             params: ["_meta": [Self.subscriptionIDKey: subscription], "notifications": [:]])
        var result = MCPEnvelope.resultFields
        if case .object(var meta)? = result["_meta"] {
            meta[Self.subscriptionIDKey] = subscription
            result["_meta"] = .object(meta)
        }
        return RawJSON(.object(result))
    }
}

extension SubscriptionsListenMethod {
    static let contract: MethodContract = #"""
        {
          "description": "MCP 2026-07-28: subscribe to change notifications. The worker's tools never change while it runs and it has no resources or prompts, so it acknowledges with nothing honored (`notifications/subscriptions/acknowledged {\"_meta\": {\"io.modelcontextprotocol/subscriptionId\": ID}, \"notifications\": {}}`) and closes the stream gracefully at once: the result `{\"resultType\": \"complete\", \"_meta\": {\"io.modelcontextprotocol/subscriptionId\": ID}}`. -32601 without the envelope.",
          "params": [
            {
              "name": "notifications",
              "schema": {"type": "object"},
              "required": false,
              "description": "The notification types wanted (none is honored)."
            },
            {
              "name": "_meta",
              "schema": {"type": "object", "description": "The 2026-07-28 envelope (see server/discover)."},
              "required": true,
              "description": "The 2026-07-28 envelope."
            }
          ],
          "result": {"name": "SubscriptionClosed", "schema": {"type": "object"}},
          "errors": [{"$ref": "#/components/errors/InvalidParams"}]
        }
        """#
}
