import Foundation
import Imaging
@testable import PhotoWorker
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct OutputWriterTests {
    private func tempDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("pw-out-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    @Test func writesThroughATemporaryFile() throws {
        let dir = try tempDir()
        try OutputWriter.writeAtomically([1, 2, 3], to: "\(dir)/a.bin")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a.bin"])
        #expect(FileManager.default.contents(atPath: "\(dir)/a.bin") == Data([1, 2, 3]))
    }

    @Test func cancelledWriteLeavesNothing() async throws {
        let dir = try tempDir()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try OutputWriter.writeAtomically([1, 2, 3], to: "\(dir)/a.bin")
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func missingFolderIsAnOutputError() {
        #expect {
            try OutputWriter.writeAtomically([1], to: "/no/such/folder/a.bin")
        } throws: { error in
            guard case WorkerError.outputFailed(let path, _) = error else { return false }
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
            #expect(throws: WorkerError.self) { try OutputWriter.writeAtomically([1], to: path) }
            var st = stat()
            #expect(stat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG, "\(path) was replaced")
        }
    }

    @Test func inlineOutputCarriesBase64() throws {
        let image = Image(width: 2, height: 2, fill: RGBA(r: 1, g: 2, b: 3))
        let r = try OutputWriter.write(image, to: OutputSpec(inline: true))
        let bytes = try #require(Data(base64Encoded: r.data ?? ""))
        #expect(try ImageCodec.decode(Array(bytes)).image == image)
        #expect(r.path == nil)
    }
}
