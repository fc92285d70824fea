import JSONRPC
import JSONRPCTransport
@testable import PhotoWorker
import Testing

/// MCP 2026-07-28's per-request envelope: what is modern, what is legacy, what is malformed.
@Suite(.timeLimit(.minutes(10)))
struct MCPEnvelopeTests {
    private static let version = "io.modelcontextprotocol/protocolVersion"
    private static let capabilities = "io.modelcontextprotocol/clientCapabilities"

    @Test func noEnvelopeIsALegacyRequest() throws {
        #expect(try MCPEnvelope.parse(nil) == nil)
        #expect(try MCPEnvelope.parse(["name": "x"]) == nil)
        #expect(try MCPEnvelope.parse(["_meta": ["progressToken": 1]]) == nil)
    }

    @Test func aCompleteEnvelopeIsModern() throws {
        let e = try #require(try MCPEnvelope.parse(["_meta": [Self.version: "2026-07-28", Self.capabilities: ["roots": [:]],
                                                              "io.modelcontextprotocol/clientInfo": ["name": "c", "version": "1"]]]))
        #expect(e.isModern && e.clientCapabilities == ["roots": [:]])
        let old = try #require(try MCPEnvelope.parse(["_meta": [Self.version: "2025-11-25", Self.capabilities: [:]]]))
        #expect(!old.isModern)
    }

    @Test func unknownVersionsAreMinus32022WithTheSupportedOnes() {
        #expect {
            try MCPEnvelope.parse(["_meta": [Self.version: "1900-01-01", Self.capabilities: [:]]])
        } throws: { error in
            let e = RPCError(error)
            return e.code.rawValue == -32022 && e.data?["requested"] == "1900-01-01"
                && e.data?["supported"] == .array(MCPDialect.supportedVersions.map(JSONValue.string))
        }
    }

    @Test(arguments: [
        (JSONValue.object([version: "2026-07-28"]), "_meta.\(capabilities)"),
        ([capabilities: [:]], "_meta.\(version)"),
        ([version: 1, capabilities: [:]], "_meta.\(version)"),
        ([version: "2026-07-28", capabilities: []], "_meta.\(capabilities)"),
        ("x", "_meta"),
    ] as [(JSONValue, String)])
    func malformedEnvelopesNameTheField(meta: JSONValue, path: String) {
        #expect {
            try MCPEnvelope.parse(["_meta": meta])
        } throws: { error in
            let e = RPCError(error)
            return e.code == .invalidParams && e.data?["path"]?.stringValue == path
        }
    }

    @Test func onlyAModernEnvelopeOpensASession() {
        let d = MCPDialect.worker
        #expect(d.session(openedBy: "server/discover", params: ["_meta": [Self.version: "2026-07-28", Self.capabilities: [:]]])?
            .protocolVersion == "2026-07-28")
        #expect(d.session(openedBy: "tools/list", params: ["_meta": [Self.version: "2025-11-25", Self.capabilities: [:]]]) == nil)
        #expect(d.session(openedBy: "server/discover", params: ["_meta": [Self.version: "2026-07-28"]]) == nil)
        #expect(d.session(openedBy: "image.info", params: ["source": ["path": "x"]]) == nil)
    }
}
