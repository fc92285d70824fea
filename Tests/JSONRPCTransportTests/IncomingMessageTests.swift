@testable import JSONRPCTransport
import Testing

@Suite(.timeLimit(.minutes(10)))
struct IncomingMessageTests {
    private func msg(_ text: String) throws -> IncomingMessage { IncomingMessage(try JSONParser.parse(text)) }

    @Test func requestsAndNotifications() throws {
        #expect(try msg(#"{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":1}}"#)
            == .request(id: .string("a"), method: "m", params: ["x": 1]))
        #expect(try msg(#"{"jsonrpc":"2.0","method":"m"}"#) == .notification(method: "m", params: nil))
    }

    @Test func nullParamsCountAsOmitted() throws {
        // What Emacs' jsonrpc.el sends for nil params, and VS Code for `shutdown` and `exit`.
        #expect(try msg(#"{"jsonrpc":"2.0","id":3,"method":"ping","params":null}"#)
            == .request(id: .number("3"), method: "ping", params: nil))
        #expect(try msg(#"{"jsonrpc":"2.0","method":"exit","params":null}"#) == .notification(method: "exit", params: nil))
    }

    @Test(arguments: [
        (#"{"jsonrpc":"1.0","id":1,"method":"m"}"#, true),
        (#"{"jsonrpc":"2.0","id":1}"#, true),
        (#"{"jsonrpc":"2.0","id":1,"method":5}"#, true),
        (#"{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}"#, true),
        (#"{"jsonrpc":"2.0","id":{"a":1},"method":"m"}"#, false),
        (#"{"jsonrpc":"2.0","id":null,"method":"m"}"#, false),
        (#"{"jsonrpc":"2.0","id":true,"method":"m"}"#, false),
        ("5", false),
    ])
    func invalidRequestsEchoTheIDWhenReadable(_ text: String, _ idReadable: Bool) throws {
        guard case .invalid(let id, let error) = try msg(text) else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(error.code == .invalidRequest)
        #expect((id != nil) == idReadable)
    }

    @Test func errorsMapInOnePlace() {
        #expect(RPCError(CancellationError()).code == .requestCancelled)
        #expect(RPCError(RPCError.methodNotFound("x")).code == .methodNotFound)
        struct Weird: Error {}
        #expect(RPCError(Weird()).code == .internalError)
    }
}
