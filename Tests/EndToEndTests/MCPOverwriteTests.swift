import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Synchronization
import Testing

import Glibc

/// In MCP sessions an output replaces an existing file only with `"overwrite": true`.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct MCPOverwriteTests {
    @Test func anyExistingFileNeedsOverwrite() async throws {
        let tree = try ConfinedTree()
        let s = try await PolicySession.start(mcp: true, roots: [tree.allowed])
        let photo: JSONValue = ["path": .string("\(tree.allowed)/photo.jpg")]
        let out: JSONValue = .string("\(tree.allowed)/out.png")
        #expect(try await s.call("image.convert", ["source": photo, "output": ["path": out]]) == .ok)
        // Its own earlier output, an image, still needs overwrite in an MCP session.
        #expect(try await s.call("image.convert", ["source": photo, "output": ["path": out]]) == .refused("exists"))
        #expect(try await s.call("image.convert", ["source": photo, "output": ["path": out, "overwrite": true]]) == .ok)
        let notes: JSONValue = .string("\(tree.allowed)/notes.txt")
        #expect(try await s.call("image.convert", ["source": photo, "output": ["path": notes]]) == .refused("exists"))
        #expect(FileManager.default.contents(atPath: "\(tree.allowed)/notes.txt") == Data("my notes\n".utf8))
    }
}
