import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Framing and hostile input: the worker answers precisely and keeps serving.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct WireTests {
    @Test func malformedLineThenGoodLine() async throws {
        let w = try WorkerProcess()
        w.send(raw: "{not json")
        w.request(2, "ping")
        let bad = try #require(try await w.next())
        #expect(bad["error"]?["code"] == -32700)
        #expect(try await w.next() == ["jsonrpc": "2.0", "id": 2, "result": [:]])
    }

    @Test func overlongLineIsDiscardedAndAnswered() async throws {
        let w = try WorkerProcess(["--max-line-bytes", "1024"])
        let big = #"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""# + String(repeating: "x", count: 5000) + #""}}"#
        w.send(raw: big)
        w.request(2, "ping")
        let r = try #require(try await w.next())
        #expect(r["id"] == .null)
        #expect(r["error"]?["code"] == -32700)
        #expect(r["error"]?["data"]?["limit"] == 1024)
        #expect(r["error"]?["data"]?["length"]?.intValue == big.utf8.count)
        #expect(try await w.next() == ["jsonrpc": "2.0", "id": 2, "result": [:]])
    }

    @Test func crlfAndBlankLinesAreTolerated() async throws {
        let w = try WorkerProcess()
        w.sendBytes(Array("\n\r\n   \n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n".utf8))
        #expect(try await w.next() == ["jsonrpc": "2.0", "id": 1, "result": [:]])
    }

    @Test func lastLineWithoutNewlineIsServedAtEOF() async throws {
        let w = try WorkerProcess()
        w.sendBytes(Array(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.utf8))
        w.closeStdin()
        #expect(try await w.next() == ["jsonrpc": "2.0", "id": 1, "result": [:]])
        #expect(try await w.waitForExit() == 0)
    }

    /// Hostile lines, named so test logs stay readable (the bytes are built in the test).
    enum HostileLine: String, CaseIterable, CustomTestStringConvertible {
        case invalidUTF8, invalidUTF8InString, deepNesting, hugeNumber, duplicateKeys, controlBytes
        var testDescription: String { rawValue }
        var bytes: [UInt8] {
            switch self {
            case .invalidUTF8: [0xFF, 0xFE, 0x7B]
            case .invalidUTF8InString: Array(#"{"jsonrpc":"2.0","id":1,"method":"p"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
            case .deepNesting: Array(String(repeating: "[", count: 100_000).utf8)
            case .hugeNumber: Array("1e999999".utf8)
            case .duplicateKeys: Array(#"{"a":1,"a":2}"#.utf8)
            case .controlBytes: [0x00, 0x01, 0x02]
            }
        }
    }

    @Test(arguments: HostileLine.allCases)
    func hostileLinesGetPreciseErrors(_ line: HostileLine) async throws {
        let w = try WorkerProcess()
        w.sendBytes(line.bytes + [0x0A])
        w.request(99, "ping")
        let r = try #require(try await w.next())
        let code = r["error"]?["code"]?.intValue
        #expect(code == -32700 || code == -32600)
        #expect(r["error"]?["data"]?["reason"]?.stringValue?.isEmpty == false)
        #expect(try await w.next() == ["jsonrpc": "2.0", "id": 99, "result": [:]])
    }

    @Test func wrongParamTypesNameThePath() async throws {
        let w = try WorkerProcess()
        let r = try await w.call(1, "diagnostics.fanout", ["children": "three"])
        #expect(r["error"]?["code"] == -32602)
        #expect(r["error"]?["data"]?["path"] == "children")
        let missing = try await w.call(2, "diagnostics.sleep", [:])
        #expect(missing["error"]?["data"]?["path"] == "ms")
        #expect(missing["error"]?["data"]?["reason"] == "required parameter is missing")
    }

    @Test func duplicateIDInFlightIsRefused() async throws {
        let w = try WorkerProcess()
        w.request(1, "diagnostics.sleep", ["ms": 600_000])
        w.request(1, "diagnostics.sleep", ["ms": 1])
        let dup = try #require(try await w.next())
        #expect(dup["id"] == 1)
        #expect(dup["error"]?["code"] == -32600)
        w.cancel(1)
        let first = try #require(try await w.next())
        #expect(first["error"]?["code"] == -32800)
    }

    @Test func stdoutCarriesOnlyProtocolMessages() async throws {
        // Every line must be a JSON-RPC message even with verbose logging (logs go to stderr).
        let w = try WorkerProcess(["--log-level", "trace"])
        _ = try await w.call(1, "initialize")
        w.send(raw: "junk")
        _ = try await w.call(2, "ping")
        w.closeStdin()
        let rest = try await w.drain()
        for m in rest { #expect(m["jsonrpc"] == "2.0") }
        #expect(try await w.waitForExit() == 0)
    }
}
