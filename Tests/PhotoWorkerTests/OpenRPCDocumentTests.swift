import Foundation
import JSONRPC
import JSONRPCTransport
@testable import PhotoWorker
import Testing

struct OpenRPCDocumentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func embeddedDocumentIsTheProtocolDocument() throws {
        let canonical = try Data(contentsOf: Self.root.appendingPathComponent("protocol/openrpc.json"))
        #expect(Array(canonical) == OpenRPCDocument.bytes, "copy protocol/openrpc.json to Sources/PhotoWorker/Resources/openrpc.json")
    }

    @Test func everyRegisteredMethodIsDocumented() {
        var options = WorkerOptions()
        options.diagnostics = true
        let table = Worker.methods(services: WorkerServices(options: options, maxJobs: 1))
        for name in table.names where !name.hasPrefix("tools/") {
            #expect(OpenRPCDocument.method(name) != nil, "\(name) is missing from protocol/openrpc.json")
        }
    }

    @Test func everyToolHasAnObjectSchemaWithResolvableRefs() {
        guard case .array(let tools) = MCPToolCatalog.tools else {
            Issue.record("no tools")
            return
        }
        #expect(tools.count == MCPToolCatalog.methods.count)
        for t in tools {
            #expect(t["inputSchema"]?["type"] == "object")
            #expect(!(t["inputSchema"]?.jsonString.contains("#/components/") ?? true))
        }
    }
}
