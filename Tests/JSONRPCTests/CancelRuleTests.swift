@testable import JSONRPC
import JSONRPCTransport
import Testing

/// ``CancelRule``, the one place that decides whether a cancelled request is answered: always (-32800), except a
/// request sent directly that its session's dialect cancels with the dialect's own notification (MCP's
/// `notifications/cancelled` wants no response); a batch member is answered even then, so its batch completes.
@Suite(.timeLimit(.minutes(10)))
@MainActor
struct CancelRuleTests {
    struct Dialect: ProtocolDialect {
        var name: String { "test" }
        func recognises(protocolVersion: String) -> Bool { protocolVersion == "test" }
        func initializeResult(protocolVersion: String, server: ServerIdentity, policy: JSONValue?) -> RawJSON {
            RawJSON(bytes: Array("{}".utf8))
        }
        var cancelNotification: (method: String, idKey: String) { ("notifications/cancelled", "requestId") }
        func progressReporter(for params: JSONValue?) -> (any ProgressReporter)? { nil }
    }

    @Test("Answered unless the session's dialect cancels a direct request with its own notification")
    func theRule() {
        let capture = Capture()
        let direct = ReplySink.direct(capture.writer)
        let batch = ReplySink.batch(BatchCollector(writer: capture.writer))
        let detached = ReplySink.detached { _ in }
        let dialect = Dialect()
        let cases: [(String?, (any ProtocolDialect)?, ReplySink, String, Bool)] = [
            ("$/cancelRequest", nil, direct, "native cancel, native session", true),
            ("$/cancelRequest", dialect, direct, "native cancel in a dialect's session", true),
            (nil, dialect, direct, "jobs.cancel in a dialect's session", true),
            ("notifications/cancelled", nil, direct, "the dialect's cancel in a native session", true),
            ("notifications/cancelled", dialect, direct, "the dialect's cancel of a direct request", false),
            ("notifications/cancelled", dialect, batch, "the dialect's cancel of a batch member", true),
            ("notifications/cancelled", dialect, detached, "the dialect's cancel of a detached job", true),
        ]
        for (method, session, sink, what, answered) in cases {
            let got = CancelRule.answers(cancelledBy: method, sessionDialect: session, sink: sink)
            #expect(got == answered, "\(what): answered \(got)")
        }
    }
}
