import Deadlines
import Compute
import Foundation
import Imaging
@testable import PhotoWorker
import Testing

import Glibc

@Suite(.timeLimit(.minutes(10)))
struct OutputWriterTests {
    private func tempDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("pw-out-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    @Test func writesThroughATemporaryFile() throws {
        let dir = try tempDir()
        try FileAccess.unrestricted.writeAtomically([1, 2, 3], to: "\(dir)/a.bin", on: .inTurn)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a.bin"])
        #expect(FileManager.default.contents(atPath: "\(dir)/a.bin") == Data([1, 2, 3]))
    }

    @Test func cancelledWriteLeavesNothing() async throws {
        let dir = try tempDir()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try FileAccess.unrestricted.writeAtomically([1, 2, 3], to: "\(dir)/a.bin", on: .inTurn)
        }
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled write to end") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func missingFolderIsAnOutputError() {
        #expect {
            try FileAccess.unrestricted.writeAtomically([1], to: "/no/such/folder/a.bin", on: .inTurn)
        } throws: { error in
            guard case WorkerError.outputFailed(let path, _, _) = error else { return false }
            return path == "/no/such/folder/a.bin"
        }
    }

    @Test func specialFilesAndFoldersAreNeverReplaced() throws {
        // A FIFO stands in for a device: replacing it would be the same bug, without the danger of
        // testing it on /dev/null.
        let dir = try tempDir()
        let fifo = "\(dir)/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, dir] {
            #expect(throws: WorkerError.self) { try FileAccess.unrestricted.writeAtomically([1], to: path, on: .inTurn) }
            var st = stat()
            #expect(stat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG, "\(path) was replaced")
        }
    }

    @Test func inlineOutputCarriesBase64() throws {
        let image = Image(width: 2, height: 2, fill: RGBA(r: 1, g: 2, b: 3))
        let r = try OutputWriter.write(image, to: OutputSpec(inline: true), access: .unrestricted, on: .inTurn)
        let bytes = try #require(Data(base64Encoded: r.data ?? ""))
        #expect(try ImageCodec.decode(Array(bytes), on: .inTurn).image == image)
        #expect(r.path == nil)
    }
}

/// Outputs never destroy what the worker could not have made.
@Suite(.timeLimit(.minutes(10)))
struct OutputOverwriteTests {
    private func folder() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("pw-over-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    private let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2]

    @Test func aFileThatIsNotAnImageIsRefusedAndKept() throws {
        let dir = try folder()
        let notes = "\(dir)/notes.png"
        try Data("my notes".utf8).write(to: URL(fileURLWithPath: notes))
        #expect {
            try FileAccess.unrestricted.writeAtomically(png, to: notes, on: .inTurn)
        } throws: { error in
            guard case WorkerError.outputFailed(let path, let reason, let rule) = error else { return false }
            return path == notes && reason.contains("not an image") && reason.contains("overwrite") && rule == "not-an-image"
        }
        #expect(FileManager.default.contents(atPath: notes) == Data("my notes".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["notes.png"], "no temporary file left")
    }

    @Test func overwriteReplacesIt() throws {
        let dir = try folder()
        let notes = "\(dir)/notes.txt"
        try Data("my notes".utf8).write(to: URL(fileURLWithPath: notes))
        try FileAccess.unrestricted.writeAtomically(png, to: notes, overwrite: true, on: .inTurn)
        #expect(FileManager.default.contents(atPath: notes) == Data(png))
    }

    @Test("images and empty files are replaced without asking", arguments: [
        [UInt8](), [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0],
    ])
    func imagesAreReplaced(_ existing: [UInt8]) throws {
        let dir = try folder()
        let path = "\(dir)/out.png"
        try Data(existing).write(to: URL(fileURLWithPath: path))
        try FileAccess.unrestricted.writeAtomically(png, to: path, on: .inTurn)
        #expect(FileManager.default.contents(atPath: path) == Data(png))
    }

    @Test func aSpecCarriesOverwriteFromJSON() throws {
        let spec = try JSONDecoder().decode(OutputSpec.self, from: Data(#"{"path":"a.png","overwrite":true}"#.utf8))
        #expect(spec.overwrite)
        #expect(try JSONDecoder().decode(OutputSpec.self, from: Data(#"{"path":"a.png"}"#.utf8)).overwrite == false)
    }
}

/// Outputs are created as the umask allows and never executable.
@Suite(.timeLimit(.minutes(10)))
struct OutputModeTests {
    @Test func outputsAre0644MinusTheUmask() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pw-mode-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileAccess.unrestricted.writeAtomically([1, 2, 3], to: "\(dir)/a.png", on: .inTurn)
        var st = stat()
        #expect(stat("\(dir)/a.png", &st) == 0)
        let mode = st.st_mode & 0o777
        // Whatever the umask of the test run, the file is at most rw-r--r-- and readable by its owner.
        #expect(mode & ~0o644 == 0 && mode & 0o600 == 0o600, "mode \(String(mode, radix: 8))")
    }
}
