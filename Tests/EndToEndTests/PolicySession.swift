import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Synchronization
import Testing

import Glibc

/// What a call came to, in either session kind: the error code and `data.rule`, or success.
struct Outcome: Equatable, CustomStringConvertible {
    var code: Int?
    var rule: String?
    var result: JSONValue?

    static let ok = Outcome(code: nil, rule: nil)
    static func denied(_ rule: String) -> Outcome { Outcome(code: -32006, rule: rule) }
    static func refused(_ rule: String) -> Outcome { Outcome(code: -32005, rule: rule) }

    static func == (a: Outcome, b: Outcome) -> Bool { a.code == b.code && a.rule == b.rule }
    var description: String { code.map { "\($0) \(rule ?? "-")" } ?? "ok" }
}

/// A worker driven natively (`method`) or as an MCP host would (`tools/call`).
struct PolicySession {
    let worker: WorkerProcess
    let mcp: Bool
    private let ids = IDs()

    final class IDs: Sendable {
        private let counter = Mutex(100)
        func next() -> Int { counter.withLock { $0 += 1; return $0 } }
    }

    /// - Parameter roots: the MCP client's roots (nil: it declares no roots capability).
    static func start(mcp: Bool, arguments: [String] = [], roots: [String]? = nil, environment: [String: String]? = nil,
                      currentDirectory: String? = nil) async throws -> PolicySession {
        // A loaded test process can take longer than the worker's 10 s to answer roots/list (a run's cooperative
        // threads were once held up for over a minute); the worker would then fall back to its working directory.
        let wait = roots == nil ? [] : ["--roots-timeout", "600"]
        let w = try WorkerProcess(arguments + wait, environment: environment, currentDirectory: currentDirectory)
        guard mcp else { return PolicySession(worker: w, mcp: false) }
        let capabilities: JSONValue = roots == nil ? [:] : ["roots": ["listChanged": true]]
        _ = try await w.call(1, "initialize", ["protocolVersion": "2025-06-18", "capabilities": capabilities,
                                               "clientInfo": ["name": "policy-test", "version": "1"]])
        w.notify("notifications/initialized")
        if let roots {
            let ask = try #require(try await w.next())
            #expect(ask["method"] == "roots/list")
            let id = try #require(ask["id"])
            w.send(["jsonrpc": "2.0", "id": id, "result": ["roots": .array(roots.map { ["uri": .string(URL(fileURLWithPath: $0).absoluteString)] })]])
        }
        return PolicySession(worker: w, mcp: true)
    }

    func call(_ method: String, _ params: JSONValue) async throws -> Outcome {
        let id = ids.next()
        if !mcp {
            let r = try await worker.call(id, method, params)
            return Outcome(code: r.errorCode, rule: r["error"]?["data"]?["rule"]?.stringValue, result: r["result"])
        }
        let r = try await worker.call(id, "tools/call", ["name": .string(method.replacingOccurrences(of: ".", with: "_")), "arguments": params])
        if let code = r.errorCode { return Outcome(code: code, rule: r["error"]?["data"]?["rule"]?.stringValue) }
        if r["result"]?["isError"] == true {
            let e = r["result"]?["structuredContent"]?["error"]
            return Outcome(code: e?["code"]?.intValue, rule: e?["data"]?["rule"]?.stringValue)
        }
        return Outcome(code: nil, rule: nil, result: r["result"]?["structuredContent"])
    }
}
