import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Outputs never replace a file the worker could not have made unless the request says `"overwrite": true`.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct OutputOverwriteTests {
    @Test func aTextFileAtTheOutputPathIsRefusedThenReplacedWithOverwrite() async throws {
        let dir = try Corpus.scratch()
        let notes = "\(dir)/notes.txt"
        try Data("my notes\n".utf8).write(to: URL(fileURLWithPath: notes))
        let w = try WorkerProcess()
        let source: JSONValue = ["path": .string(Corpus.photo("girl-1.jpg"))]
        let refused = try await w.call(1, "image.convert", ["source": source, "output": ["path": .string(notes), "format": "png"]])
        #expect(refused.errorCode == -32005)
        #expect(refused["error"]?["data"]?["path"] == .string(notes))
        #expect(refused["error"]?["data"]?["reason"]?.stringValue?.contains("not an image") == true)
        #expect(FileManager.default.contents(atPath: notes) == Data("my notes\n".utf8), "the file is untouched")

        let replaced = try await w.call(2, "image.convert", ["source": source, "output": ["path": .string(notes), "format": "png", "overwrite": true]])
        #expect(replaced["result"]?["output"]?["path"] == .string(notes))
        #expect(FileManager.default.contents(atPath: notes)?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        // Its own earlier output is an image now: written again without asking.
        let again = try await w.call(3, "image.convert", ["source": source, "output": ["path": .string(notes), "format": "png"]])
        #expect(again["result"] != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["notes.txt"], "no temporary files left")
    }

    @Test func anOutputFolderRefusesToReplaceNonImagesUnlessTold() async throws {
        let dir = try Corpus.scratch()
        // photo.process names its outputs NAME-sticker.png and NAME-gradient.png.
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: "\(dir)/girl-1-sticker.png"))
        let w = try WorkerProcess()
        let source: JSONValue = ["path": .string(Corpus.photo("girl-1.jpg"))]
        let refused = try await w.call(1, "photo.process", ["source": source, "output": ["dir": .string(dir)]])
        #expect(refused.errorCode == -32005)
        #expect(FileManager.default.contents(atPath: "\(dir)/girl-1-sticker.png") == Data("keep me".utf8))
        let done = try await w.call(2, "photo.process", ["source": source, "output": ["dir": .string(dir), "overwrite": true]])
        #expect(done["result"]?["sticker"]?["path"] == .string("\(dir)/girl-1-sticker.png"))
    }
}
