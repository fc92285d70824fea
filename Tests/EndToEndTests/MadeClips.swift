import Foundation
import PhotoWorkerTestSupport

/// Clips the tests make from corpus/ by copying or cutting a file (no encoder at test time: a fresh root's test run
/// has no ffmpeg): inputs made fresh in a test's folder.
enum MadeClips {
    /// corpus/motion/six-seconds.mp4 (pan.mp4 played six times over, its stream copied by scripts/gen-motion-corpus.sh:
    /// 6 s, 72 frames), copied into the test's folder.
    static func sixSeconds(in dir: String) throws -> String {
        let path = "\(dir)/six-seconds.mp4"
        try FileManager.default.copyItem(atPath: Corpus.path("motion/six-seconds.mp4"), toPath: path)
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
}
