import Foundation
import JSONRPC
import JSONRPCTransport
@testable import PhotoWorker
import Testing

import Glibc

/// The walk used where the kernel has no openat2: stricter, never looser.
@Suite(.timeLimit(.minutes(10)))
struct FileAccessFallbackTests {
    private func tree() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pw-walk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: "\(root)/in/sub", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(root)/out", withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: URL(fileURLWithPath: "\(root)/in/sub/a.txt"))
        try Data("outside".utf8).write(to: URL(fileURLWithPath: "\(root)/out/b.txt"))
        try FileManager.default.createSymbolicLink(atPath: "\(root)/in/link", withDestinationPath: "sub/a.txt")
        try FileManager.default.createSymbolicLink(atPath: "\(root)/in/away", withDestinationPath: "../out")
        return root
    }

    private func open(_ path: String, root: String, openat2: Bool) -> Result<Int32, FileAccess.Failure> {
        Result { try FileAccess.open(path, in: .within(["\(root)/in"]), flags: O_RDONLY, useOpenat2: openat2) }
            .mapError { $0 as! FileAccess.Failure }
    }

    @Test(arguments: [true, false])
    func plainPathsOpenAndEscapesAreRefused(openat2: Bool) throws {
        let root = try tree()
        let fd = try open("\(root)/in/sub/a.txt", root: root, openat2: openat2).get()
        close(fd)
        #expect(throws: FileAccess.Failure.escapes) { try open("\(root)/in/sub/../../out/b.txt", root: root, openat2: openat2).get() }
        #expect(throws: FileAccess.Failure.outside) { try open("\(root)/out/b.txt", root: root, openat2: openat2).get() }
        #expect(throws: (any Error).self) { try open("\(root)/in/away/b.txt", root: root, openat2: openat2).get() }
    }

    @Test func theWalkFollowsNoSymbolicLink() throws {
        let root = try tree()
        // openat2 follows a link that stays inside; the walk refuses every link.
        let fd = try open("\(root)/in/link", root: root, openat2: true).get()
        close(fd)
        #expect(throws: FileAccess.Failure.symlink) { try open("\(root)/in/link", root: root, openat2: false).get() }
        #expect(throws: FileAccess.Failure.symlink) { try open("\(root)/in/away/b.txt", root: root, openat2: false).get() }
    }

    @Test func foldersAreCreatedOnlyInside() throws {
        let root = try tree()
        let fd = try FileAccess.createDirectories("\(root)/in/new/deeper", in: .within(["\(root)/in"]))
        close(fd)
        var isDir: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: "\(root)/in/new/deeper", isDirectory: &isDir) && isDir.boolValue)
        #expect(throws: FileAccess.Failure.self) { try FileAccess.createDirectories("\(root)/in/away/new", in: .within(["\(root)/in"])) }
        #expect(!FileManager.default.fileExists(atPath: "\(root)/out/new"))
    }
}
