import Foundation
import Imaging

/// `photobench motion [--iterations N]` (default 3)
///
/// Frames per second of `MotionDecoder` (demux, decode on one thread, swscale to RGBA, rotation) on clips made
/// deterministically into bench/out/ with ffmpeg from a corpus photo: a 3 s 1080p 30 fps H.264 MP4 (issue 44's speed
/// goal: a 3 s clip to a sticker in 6 s), a 2 s 2160p 30 fps HEVC MOV and
/// a 3 s 1080p VP9 WebM; beside it the same clip through `ffmpeg -threads 1 ... -pix_fmt rgba -f null -` (FFmpeg's
/// own tool doing the same work), and the process's peak RSS after the suite (frames are pulled one at a time).
enum MotionBench {
    static func run(_ args: [String]) throws {
        var iterations = 3
        if let i = args.firstIndex(of: "--iterations"), i + 1 < args.count, let n = Int(args[i + 1]) { iterations = max(1, n) }
        let clips = try makeClips()
        print("motion: best of \(iterations) runs, all frames, one decoder thread")
        for clip in clips {
            var frames = 0
            var info: MotionInfo? = nil
            let seconds = try DecodeBench.best(iterations) {
                let decoder = try MotionDecoder(fileDescriptor: try open(clip), on: .inTurn)
                info = decoder.info
                frames = 0
                while try decoder.next(on: .inTurn) != nil { frames += 1 }
            }
            let tool = try DecodeBench.best(iterations) {
                try ffmpeg(["-threads", "1", "-i", clip.path, "-pix_fmt", "rgba", "-f", "null", "-"])
            }
            let size = info.map { "\($0.width)x\($0.height) \($0.codec)" } ?? "?"
            print(String(format: "  %-22@ %-16@ %4d frames  %7.1f ms  %6.1f fps   ffmpeg -threads 1: %7.1f ms  %6.1f fps",
                         clip.lastPathComponent as NSString, size as NSString, frames, seconds * 1000,
                         Double(frames) / seconds, tool * 1000, Double(frames) / tool))
        }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM") }.map(String.init) ?? "VmHWM: ?"
        print("  peak RSS of the suite: \(peak.replacingOccurrences(of: "VmHWM:", with: "").trimmingCharacters(in: .whitespaces))")
    }

    private static func open(_ url: URL) throws -> Int32 {
        let fd = Foundation.open(url.path, O_RDONLY)
        guard fd >= 0 else { throw CocoaError(.fileReadNoPermission) }
        return fd  // MotionDecoder keeps its own duplicate; this one is left to process exit (a bench)
    }

    private static func ffmpeg(_ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"] + arguments
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// The clips, made once (kept in bench/out/, not committed).
    private static func makeClips() throws -> [URL] {
        try FileManager.default.createDirectory(at: DecodeBench.outDir, withIntermediateDirectories: true)
        let photo = DecodeBench.corpus.appendingPathComponent("girl-1.jpg").path
        let specs: [(String, [String])] = [
            ("pan-1080p30.mp4", ["-vf", "scale=3840:-2,crop=1920:1080:x='t*300':y=100,format=yuv420p", "-t", "3",
                                 "-c:v", "libx264", "-preset", "fast", "-crf", "23", "-movflags", "+faststart"]),
            ("pan-2160p30.mov", ["-vf", "scale=5760:-2,crop=3840:2160:x='t*400':y=100,format=yuv420p", "-t", "2",
                                 "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
                                 "-tag:v", "hvc1"]),
            ("pan-1080p30.webm", ["-vf", "scale=3840:-2,crop=1920:1080:x='t*300':y=100,format=yuv420p", "-t", "3",
                                  "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "4M"]),
        ]
        var urls: [URL] = []
        for (name, encode) in specs {
            let url = DecodeBench.outDir.appendingPathComponent(name)
            if !FileManager.default.fileExists(atPath: url.path) {
                try ffmpeg(["-loop", "1", "-framerate", "30", "-i", photo] + encode + [url.path])
            }
            urls.append(url)
        }
        return urls
    }
}
