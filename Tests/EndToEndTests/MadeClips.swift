import Foundation
import PhotoWorkerTestSupport

/// Clips the tests make from corpus/ with Debian's ffmpeg (installed with the build's packages) or by cutting a file:
/// inputs no corpus file is, made fresh in a test's folder.
enum MadeClips {
    /// corpus/motion/pan.mp4 (1 s, 12 fps, 96x64, moov first) played six times over, copied without re-encoding: a
    /// 6 s clip of 72 frames.
    static func sixSeconds(in dir: String) throws -> String {
        let path = "\(dir)/six-seconds.mp4"
        try ffmpeg(["-stream_loop", "5", "-i", Corpus.path("motion/pan.mp4"), "-c", "copy", path])
        return path
    }

    /// corpus/motion/pan-moov-at-end.mp4 cut in half: its frames arrived, its index (the moov box, written last)
    /// did not, as when a phone's recording or a download stops early.
    static func cutOff(in dir: String) throws -> String {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Corpus.path("motion/pan-moov-at-end.mp4")))
        let path = "\(dir)/cut-off.mp4"
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// corpus/motion/pan.mp4 (moov first: 1 s, 12 frames declared) cut to its first 90%: its index is whole, its frames
    /// stop a few in (4 decode), as when a copy or a download stops early. (Cut shorter, no frame decodes at all.)
    static func truncated(in dir: String) throws -> String {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Corpus.path("motion/pan.mp4")))
        let path = "\(dir)/truncated.mp4"
        try whole.prefix(whole.count * 9 / 10).write(to: URL(fileURLWithPath: path))
        return path
    }

    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    static func ffmpeg(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(description: "ffmpeg \(arguments): \(process.terminationStatus) \(String(decoding: said, as: UTF8.self))")
        }
    }
}
