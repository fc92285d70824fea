import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// The examples section of the JSON-RPC 2.0 specification, with our method names substituted.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct SpecExamplesTests {
    @Test func namedParams() async throws {
        let w = try WorkerProcess()
        w.send(raw: #"{"jsonrpc": "2.0", "method": "diagnostics.sleep", "params": {"ms": 1}, "id": 3}"#)
        let r = try #require(try await w.next())
        #expect(r == ["jsonrpc": "2.0", "id": 3, "result": ["slept": 1]])
    }

    @Test func positionalParamsAreRefusedAsInvalidParams() async throws {
        let w = try WorkerProcess()
        w.send(raw: #"{"jsonrpc": "2.0", "method": "diagnostics.sleep", "params": [42, 23], "id": 1}"#)
        let r = try #require(try await w.next())
        #expect(r["error"]?["code"] == -32602)
        #expect(r["error"]?["data"]?["path"] == "params")
        #expect(r["id"] == 1)
    }

    @Test func methodsWithoutParamsRefusePositionalParamsToo() async throws {
        let w = try WorkerProcess()
        w.send(raw: #"{"jsonrpc": "2.0", "method": "ping", "params": [1], "id": 2}"#)
        let r = try #require(try await w.next())
        #expect(r["error"]?["code"] == -32602)
        #expect(r["error"]?["data"]?["path"] == "params")
    }

    @Test func notificationGetsNoReply() async throws {
        let w = try WorkerProcess()
        w.send(raw: #"{"jsonrpc": "2.0", "method": "ping", "params": {}}"#)
        w.send(raw: #"{"jsonrpc": "2.0", "method": "diagnostics.sleep", "params": {"ms": 1}}"#)
        w.request(7, "ping")
        // The first thing written is the reply to the request: the notifications produced nothing.
        #expect(try await w.next() == ["jsonrpc": "2.0", "id": 7, "result": [:]])
    }

    @Test func nonExistentMethod() async throws {
        let w = try WorkerProcess()
        w.send(raw: #"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#)
        let r = try #require(try await w.next())
        #expect(r["id"] == "1")
        #expect(r["error"]?["code"] == -32601)
        #expect(r["error"]?["data"]?["method"] == "foobar")
    }

    @Test func invalidJSON() async throws {
        let w = try WorkerProcess()
        w.send(raw: #"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#)
        let r = try #require(try await w.next())
        #expect(r["id"] == .null)
        #expect(r["error"]?["code"] == -32700)
        #expect(r["error"]?["data"]?["offset"]?.intValue != nil)
    }

    @Test func invalidRequestObject() async throws {
        let w = try WorkerProcess()
        w.send(raw: #"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#)
        let r = try #require(try await w.next())
        #expect(r["id"] == .null)
        #expect(r["error"]?["code"] == -32600)
    }

    @Test func batchWithInvalidJSON() async throws {
        let w = try WorkerProcess()
        w.send(raw: #"[ {"jsonrpc": "2.0", "method": "ping", "id": "1"}, {"jsonrpc": "2.0", "method" ]"#)
        let r = try #require(try await w.next())
        #expect(r["error"]?["code"] == -32700)
        #expect(r["id"] == .null)
    }

    @Test func emptyArray() async throws {
        let w = try WorkerProcess()
        w.send(raw: "[]")
        let r = try #require(try await w.next())
        #expect(r["error"]?["code"] == -32600)
        #expect(r["id"] == .null)
    }

    @Test(arguments: ["[1]", "[1,2,3]"])
    func invalidBatch(_ line: String) async throws {
        let w = try WorkerProcess()
        w.send(raw: line)
        let r = try #require(try await w.next())
        guard case .array(let members) = r else {
            Issue.record("expected an array, got \(r)")
            return
        }
        #expect(members.count == line.filter { $0.isNumber }.count)
        for m in members {
            #expect(m["error"]?["code"] == -32600)
            #expect(m["id"] == .null)
        }
    }

    @Test func mixedBatch() async throws {
        let w = try WorkerProcess()
        w.send(raw: """
            [{"jsonrpc": "2.0", "method": "diagnostics.sleep", "params": {"ms": 5}, "id": "1"},\
            {"jsonrpc": "2.0", "method": "ping", "params": {}},\
            {"jsonrpc": "2.0", "method": "diagnostics.sleep", "params": {"ms": 1}, "id": "2"},\
            {"foo": "boo"},\
            {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},\
            {"jsonrpc": "2.0", "method": "ping", "id": "9"}]
            """)
        let r = try #require(try await w.next())
        guard case .array(let members) = r else {
            Issue.record("expected an array, got \(r)")
            return
        }
        #expect(members.count == 5)
        let byID = Dictionary(members.map { ($0["id"]?.stringValue ?? "null", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byID["1"]?["result"] == ["slept": 5])
        #expect(byID["2"]?["result"] == ["slept": 1])
        #expect(byID["null"]?["error"]?["code"] == -32600)
        #expect(byID["5"]?["error"]?["code"] == -32601)
        #expect(byID["9"]?["result"] == [:])
    }

    @Test func allNotificationBatchGetsNothing() async throws {
        let w = try WorkerProcess()
        w.send(raw: #"[{"jsonrpc": "2.0", "method": "ping", "params": {}}, {"jsonrpc": "2.0", "method": "ping"}]"#)
        w.request(1, "ping")
        #expect(try await w.next() == ["jsonrpc": "2.0", "id": 1, "result": [:]])
    }

    @Test func idsAreEchoedExactly() async throws {
        let w = try WorkerProcess()
        for id in [#""abc""#, "12345678901234567890123", "1.5e3", "-0", #""""#] {
            w.send(raw: #"{"jsonrpc":"2.0","method":"ping","id":\#(id)}"#)
            let line = try #require(try await w.nextRawLine())
            #expect(line == #"{"jsonrpc":"2.0","id":\#(id),"result":{}}"#)
        }
    }
}
