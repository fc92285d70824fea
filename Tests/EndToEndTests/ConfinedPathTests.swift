import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Synchronization
import Testing

import Glibc

/// A folder tree with a way out at every turn: the allowed folder holds links leading outside,
/// and outside holds what must not be read or replaced.
///
///     root/allowed/photo.jpg          a photo (girl-1.jpg)
///     root/allowed/notes.txt          a text file
///     root/allowed/link-out.png    -> ../outside/secret.png   (relative link leading out)
///     root/allowed/abs-in.jpg      -> root/allowed/photo.jpg  (absolute link staying inside)
///     root/allowed/parent-out      -> ../outside              (folder link leading out)
///     root/allowed/hard.png           hard link to outside/secret.png
///     root/outside/secret.png         32x32 PNG
struct ConfinedTree {
    let root: String
    var allowed: String { "\(root)/allowed" }
    var outside: String { "\(root)/outside" }
    var secret: String { "\(outside)/secret.png" }
    var secretBytes: Data { FileManager.default.contents(atPath: secret) ?? Data() }

    init(_ name: String = #function) throws {
        root = try Corpus.scratch(name)
        let fm = FileManager.default
        try fm.createDirectory(atPath: "\(root)/allowed", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: "\(root)/outside", withIntermediateDirectories: true)
        try fm.copyItem(atPath: Corpus.photo("girl-1.jpg"), toPath: "\(root)/allowed/photo.jpg")
        try fm.copyItem(atPath: Corpus.path("pngsuite/basn2c08.png"), toPath: "\(root)/outside/secret.png")
        try Data("my notes\n".utf8).write(to: URL(fileURLWithPath: "\(root)/allowed/notes.txt"))
        try fm.createSymbolicLink(atPath: "\(root)/allowed/link-out.png", withDestinationPath: "../outside/secret.png")
        try fm.createSymbolicLink(atPath: "\(root)/allowed/abs-in.jpg", withDestinationPath: "\(root)/allowed/photo.jpg")
        try fm.createSymbolicLink(atPath: "\(root)/allowed/parent-out", withDestinationPath: "../outside")
        #expect(link("\(root)/outside/secret.png", "\(root)/allowed/hard.png") == 0)
    }
}

/// `--allow-dir` and MCP roots: every source and output must resolve inside an allowed folder.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct ConfinedPathTests {
    /// Sources: (path relative to the tree's root, expected outcome).
    static let reads: [(String, Outcome)] = [
        ("allowed/photo.jpg", .ok),
        ("allowed/./photo.jpg", .ok),
        ("allowed/abs-in.jpg", .ok),  // an absolute link that stays inside
        ("allowed/hard.png", .ok),  // a hard link lives where its name is (see protocol/README.md)
        ("allowed/../outside/secret.png", .denied("escapes-allowed-directory")),
        ("outside/secret.png", .denied("outside-allowed-directories")),
        ("allowed/link-out.png", .denied("escapes-allowed-directory")),
        ("allowed/parent-out/secret.png", .denied("escapes-allowed-directory")),
        ("/etc/passwd", .denied("outside-allowed-directories")),
    ]

    /// Outputs of image.convert: (path, overwrite, expected outcome).
    static let writes: [(String, Bool, Outcome)] = [
        ("allowed/out.png", false, .ok),
        ("outside/out.png", false, .denied("outside-allowed-directories")),
        ("allowed/../outside/out.png", false, .denied("escapes-allowed-directory")),
        ("allowed/parent-out/out.png", false, .denied("escapes-allowed-directory")),
        ("allowed/link-out.png", true, .refused("not-a-file")),  // a symbolic link is never replaced
        ("/tmp/../etc/photoworker-must-not-exist.png", false, .denied("outside-allowed-directories")),
    ]

    private func path(_ tree: ConfinedTree, _ p: String) -> String { p.hasPrefix("/") ? p : "\(tree.root)/\(p)" }

    @Test(arguments: [false, true])
    func sourcesAndOutputsStayInside(mcp: Bool) async throws {
        let tree = try ConfinedTree("confined\(mcp)")
        let s = try await PolicySession.start(
            mcp: mcp, arguments: mcp ? [] : ["--allow-dir", tree.allowed], roots: mcp ? [tree.allowed] : nil)
        for (p, expected) in Self.reads {
            let got = try await s.call("image.info", ["source": ["path": .string(path(tree, p))]])
            #expect(got == expected, "reading \(p) (mcp: \(mcp)): \(got)")
        }
        let photo: JSONValue = ["path": .string("\(tree.allowed)/photo.jpg")]
        for (p, overwrite, expected) in Self.writes {
            let got = try await s.call("image.convert", ["source": photo, "output": ["path": .string(path(tree, p)), "overwrite": .bool(overwrite)]])
            #expect(got == expected, "writing \(p) (mcp: \(mcp)): \(got)")
        }
        #expect(Corpus.files(in: tree.outside) == ["secret.png"], "nothing was written outside")
        #expect(!FileManager.default.fileExists(atPath: "/etc/photoworker-must-not-exist.png"))
        #expect(tree.secretBytes == FileManager.default.contents(atPath: Corpus.path("pngsuite/basn2c08.png")))
        #expect(Corpus.files(in: tree.allowed).allSatisfy { !$0.contains(".tmp-") }, "no temporary files left")
    }

    @Test(arguments: [false, true])
    func everyMethodWorksInsideTheAllowedFolder(mcp: Bool) async throws {
        let tree = try ConfinedTree("inside\(mcp)")
        let s = try await PolicySession.start(
            mcp: mcp, arguments: mcp ? [] : ["--allow-dir", tree.allowed], roots: mcp ? [tree.allowed] : nil)
        let photo: JSONValue = ["path": .string("\(tree.allowed)/photo.jpg")]
        let a = tree.allowed
        let calls: [(String, JSONValue)] = [
            ("image.info", ["source": photo]),
            ("image.convert", ["source": photo, "output": ["path": .string("\(a)/c.jpg")]]),
            ("image.thumbnail", ["source": photo, "width": 64, "output": ["path": .string("\(a)/t.png")]]),
            ("image.scale", ["source": photo, "factor": 0.25, "output": ["path": .string("\(a)/s.png")]]),
            ("image.palette", ["source": photo, "count": 4]),
            ("image.effect", ["source": ["path": .string("\(a)/t.png")], "effects": [["grayscale": true]], "output": ["path": .string("\(a)/e.png")]]),
            ("image.sticker", ["source": ["path": .string("\(a)/t.png")], "output": ["path": .string("\(a)/st.png")], "maskOutput": ["path": .string("\(a)/m.png")]]),
            ("photo.process", ["source": ["path": .string("\(a)/t.png")], "output": ["dir": .string("\(a)/one")]]),
            ("photos.process", ["sources": [["path": .string("\(a)/t.png")]], "output": ["dir": .string("\(a)/many/deeper")]]),
            ("pack.export", ["stickers": [["path": .string("\(a)/st.png")]], "output": ["path": .string("\(a)/pack.png")], "filesDir": .string("\(a)/files")]),
        ]
        for (method, params) in calls {
            let got = try await s.call(method, params)
            #expect(got == .ok, "\(method) (mcp: \(mcp)): \(got)")
        }
        // Folders outside are refused for the batch and pack outputs too.
        let outDir = try await s.call("photos.process", ["sources": [photo], "output": ["dir": .string("\(tree.outside)/batch")]])
        #expect(outDir == .denied("outside-allowed-directories"))
        let files = try await s.call("pack.export", ["stickers": [["path": .string("\(a)/st.png")]], "output": ["path": .string("\(a)/pack2.png")],
                                                     "filesDir": .string("\(a)/parent-out/files")])
        #expect(files == .denied("escapes-allowed-directory"))
        #expect(Corpus.files(in: tree.outside) == ["secret.png"])
    }

    @Test func aHardLinkIsReplacedByNameNeverWrittenThrough() async throws {
        let tree = try ConfinedTree()
        let s = try await PolicySession.start(mcp: false, arguments: ["--allow-dir", tree.allowed])
        let before = tree.secretBytes
        let got = try await s.call("image.convert", ["source": ["path": .string("\(tree.allowed)/photo.jpg")],
                                                     "output": ["path": .string("\(tree.allowed)/hard.png")]])
        #expect(got == .ok)
        #expect(tree.secretBytes == before, "the file outside is untouched")
        var st = stat()
        #expect(stat(tree.secret, &st) == 0 && st.st_nlink == 1, "the name inside now holds a file of its own")
    }

    @Test func readAndWriteFoldersCanDiffer() async throws {
        let tree = try ConfinedTree()
        let out = "\(tree.root)/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let s = try await PolicySession.start(mcp: false, arguments: ["--allow-read-dir", tree.allowed, "--allow-write-dir", out])
        let photo: JSONValue = ["path": .string("\(tree.allowed)/photo.jpg")]
        #expect(try await s.call("image.convert", ["source": photo, "output": ["path": .string("\(out)/a.png")]]) == .ok)
        #expect(try await s.call("image.convert", ["source": photo, "output": ["path": .string("\(tree.allowed)/a.png")]])
            == .denied("outside-allowed-directories"))
        #expect(try await s.call("image.info", ["source": ["path": .string("\(out)/a.png")]]) == .denied("outside-allowed-directories"))
        let stats = try await s.worker.call(9, "worker.stats")
        #expect(stats["result"]?["policy"]?["origin"] == "allow-dir")
        #expect(stats["result"]?["policy"]?["write"] == .array([.string(SessionPaths.canonical(out))]))
    }

    /// A symbolic link swapped in and out while the worker reads the name: every answer is the file
    /// inside or a refusal, never the file the link points to.
    @Test func aLinkSwappedInDuringReadsNeverLeaksTheOutsideFile() async throws {
        let tree = try ConfinedTree()
        let inside = "\(tree.allowed)/race.png"
        let copy = "\(tree.allowed)/inside-copy.png"
        let fm = FileManager.default
        try fm.copyItem(atPath: Corpus.path("pngsuite/s09n3p02.png"), toPath: copy)  // 9x9
        try fm.copyItem(atPath: copy, toPath: inside)
        let s = try await PolicySession.start(mcp: false, arguments: ["--allow-dir", tree.allowed])
        let refusedAnswers: [Outcome] = [.denied("escapes-allowed-directory"), .denied("outside-allowed-directories")]

        // Each state on its own first, so the race below cannot pass by only ever meeting one of them.
        #expect(SwapLog.swap(in: tree.secret, asLink: true, at: inside, temp: "\(tree.allowed)/.swap-link"))
        let asLink = try await s.call("image.info", ["source": ["path": .string(inside)]])
        #expect(refusedAnswers.contains(asLink), "the link alone: \(asLink)")
        #expect(SwapLog.swap(in: copy, asLink: false, at: inside, temp: "\(tree.allowed)/.swap-file"))
        #expect(try await s.call("image.info", ["source": ["path": .string(inside)]]).result?["width"]?.intValue == 9)

        let log = SwapLog()
        let swapper = Thread {
            var i = 0
            while !log.stopped {
                i += 1
                log.record(SwapLog.swap(in: i % 2 == 0 ? tree.secret : copy, asLink: i % 2 == 0, at: inside,
                                        temp: "\(tree.allowed)/.swap-\(i)"))
            }
        }
        swapper.start()
        defer { log.stop() }
        var insideSeen = 0, refused = 0
        // Rounds until both answers were seen often; the bound only matters if the swapping thread is
        // starved, and then the last expectation says so with the thread's own count.
        for round in 0..<3000 {
            let got = try await s.call("image.info", ["source": ["path": .string(inside)]])
            if let width = got.result?["width"]?.intValue {
                #expect(width == 9, "round \(round) read the file outside")
                insideSeen += 1
            } else {
                #expect(refusedAnswers.contains(got) || got.code == -32001, "round \(round): \(got)")
                refused += 1
            }
            if insideSeen > 20 && refused > 20 { break }
        }
        log.stop()
        #expect(insideSeen > 0 && refused > 0,
                "the race was exercised: \(insideSeen) inside, \(refused) refused; \(log.summary)")
    }

    @Test func mcpWithoutRootsIsConfinedToTheWorkingDirectory() async throws {
        let tree = try ConfinedTree()
        let s = try await PolicySession.start(mcp: true, currentDirectory: tree.allowed)
        #expect(try await s.call("image.info", ["source": ["path": "photo.jpg"]]) == .ok)
        #expect(try await s.call("image.info", ["source": ["path": .string(tree.secret)]]) == .denied("outside-allowed-directories"))
        let stats = try await s.worker.call(9, "worker.stats")
        #expect(stats["result"]?["policy"]?["origin"] == "working-directory")
        #expect(stats["result"]?["policy"]?["replace"] == "never")
        #expect(stats["result"]?["policy"]?["urls"] == "public")
    }

    @Test func mcpRootsFollowListChanged() async throws {
        let tree = try ConfinedTree()
        let s = try await PolicySession.start(mcp: true, roots: [tree.outside])
        #expect(try await s.call("image.info", ["source": ["path": .string("\(tree.allowed)/photo.jpg")]]) == .denied("outside-allowed-directories"))
        s.worker.notify("notifications/roots/list_changed")
        let ask = try #require(try await s.worker.next())
        #expect(ask["method"] == "roots/list")
        s.worker.send(["jsonrpc": "2.0", "id": try #require(ask["id"]), "result": ["roots": [["uri": .string(URL(fileURLWithPath: tree.allowed).absoluteString)]]]])
        #expect(try await s.call("image.info", ["source": ["path": .string("\(tree.allowed)/photo.jpg")]]) == .ok)
    }

    @Test func plainSessionsStayUnrestrictedWithoutAllowDir() async throws {
        let tree = try ConfinedTree()
        let s = try await PolicySession.start(mcp: false)
        #expect(try await s.call("image.info", ["source": ["path": .string("\(tree.allowed)/link-out.png")]]) == .ok)
        let stats = try await s.worker.call(9, "worker.stats")
        #expect(stats["result"]?["policy"]?["read"] == "anywhere")
        #expect(stats["result"]?["policy"]?["urls"] == "any")
    }
}

/// The canonical form the worker reports folders in.
enum SessionPaths {
    static func canonical(_ p: String) -> String {
        guard let r = realpath(p, nil) else { return p }
        defer { free(r) }
        return String(cString: r)
    }
}

/// The swapping thread's side of the link race: a stop flag the test sets, and the thread's count of
/// swaps made and failed, so a race that was never run says why.
final class SwapLog: Sendable {
    private struct State { var stopped = false, swaps = 0, failures = 0 }
    private let state = Mutex(State())
    var stopped: Bool { state.withLock { $0.stopped } }
    func stop() { state.withLock { $0.stopped = true } }
    func record(_ ok: Bool) { state.withLock { if ok { $0.swaps += 1 } else { $0.failures += 1 } } }
    var summary: String { state.withLock { "the swapper made \($0.swaps) swaps, \($0.failures) failed" } }

    /// Puts a symbolic link to `target` (or a hard link to it) at `path` in one rename, as an attacker
    /// would; `temp` is a fresh name beside it.
    static func swap(in target: String, asLink: Bool, at path: String, temp: String) -> Bool {
        let made = asLink ? symlink(target, temp) : link(target, temp)
        return made == 0 && rename(temp, path) == 0
    }
}
