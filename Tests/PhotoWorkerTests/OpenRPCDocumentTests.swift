import Foundation
import JSONRPC
import JSONRPCTransport
@testable import PhotoWorker
import Testing

/// The contract the code states (each method's `contract`, the shared schemas beside their types) and the
/// committed protocol/openrpc.json are one document, complete in both directions.
@Suite(.timeLimit(.minutes(10)))
struct OpenRPCDocumentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theCommittedDocumentIsWhatTheCodeStates() throws {
        let committed = try String(contentsOf: Self.root.appendingPathComponent("protocol/openrpc.json"), encoding: .utf8)
        let generated = OpenRPCDocument.text
        let a = committed.split(separator: "\n", omittingEmptySubsequences: false)
        let b = generated.split(separator: "\n", omittingEmptySubsequences: false)
        let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }.map { $0.offset + 1 } ?? min(a.count, b.count) + 1
        #expect(committed == generated, """
            protocol/openrpc.json differs from the code's contract from line \(first) \
            (committed: \(first <= a.count ? String(a[first - 1]) : "end of file"); \
            code: \(first <= b.count ? String(b[first - 1]) : "end of file")): run scripts/gen-openrpc.sh
            """)
    }

    @Test func theDocumentListsExactlyTheMethodsTheWorkerRegisters() {
        var options = WorkerOptions()
        options.diagnostics = true
        let table = Worker.methods(services: WorkerServices(options: options, maxJobs: 1))
        let registered = Set(table.names).union(table.notifications.keys)
        let stated = Set(OpenRPCDocument.methods.map { $0.name })
        #expect(registered == stated, "registered but not in OpenRPCDocument.methods: \(registered.subtracting(stated).sorted()); listed but not registered: \(stated.subtracting(registered).sorted())")
        guard case .array(let entries)? = OpenRPCDocument.value["methods"] else {
            Issue.record("the document has no methods")
            return
        }
        let documented = Set(entries.compactMap { $0["name"]?.stringValue })
        let builtins: Set = ["initialize", "shutdown", "exit", "$/cancelRequest", "notifications/cancelled", "ping",
                             "jobs.list", "jobs.cancel", "worker.stats"]
        #expect(documented == stated.union(builtins), "documented: \(documented.sorted())")
    }

    @Test func everyReferenceResolvesAndEveryComponentIsUsed() {
        var refs: Set<String> = []
        func collect(_ v: JSONValue) {
            switch v {
            case .object(let o):
                for (k, x) in o { if k == "$ref", let s = x.stringValue { refs.insert(s) } else { collect(x) } }
            case .array(let a): a.forEach(collect)
            default: break
            }
        }
        collect(OpenRPCDocument.value)
        var defined: Set<String> = []
        for kind in ["schemas", "errors"] {
            guard case .object(let components)? = OpenRPCDocument.value["components"]?[kind] else { continue }
            for name in components.keys { defined.insert("#/components/\(kind)/\(name)") }
        }
        #expect(refs.subtracting(defined).isEmpty, "unresolved: \(refs.subtracting(defined).sorted())")
        // Errors of the protocol itself (-32700, -32600...) are stated for every message, not referred to; of the
        // schemas only `$/progress`'s params stand alone (a notification the worker sends, not a method).
        let unused = defined.subtracting(refs).filter { $0.hasPrefix("#/components/schemas/") }
            .subtracting(["#/components/schemas/ProgressParams"])
        #expect(unused.isEmpty, "defined but never referred to: \(unused.sorted())")
    }

    /// The rule reads the compiled contract: it cannot vanish with a missing file, as it once could.
    @Test func everyToolRefusesUnknownParameters() throws {
        for method in MCPToolCatalog.methods {
            let check = try #require(ParamNames.check(method), "\(method) has no parameter check")
            #expect(throws: RPCError.self, "\(method) accepted an unknown parameter") {
                try check(["surely-not-a-parameter": 1])
            }
        }
    }

    @Test func everyToolHasAStandaloneObjectSchema() {
        guard case .array(let tools) = MCPToolCatalog.list else {
            Issue.record("no tools")
            return
        }
        #expect(tools.count == MCPToolCatalog.methods.count && tools.count >= 14, "\(tools.count) tools")
        for t in tools {
            #expect(t["inputSchema"]?["type"] == "object", "\(t["name"] ?? "?")")
            #expect(!(t["inputSchema"]?.jsonString.contains("#/components/") ?? true), "\(t["name"] ?? "?")")
        }
    }
}
