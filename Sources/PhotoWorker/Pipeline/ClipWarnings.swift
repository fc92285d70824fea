import Imaging

/// What an animated sticker changed of what was asked, in a person's words: the result's `warnings`. Each is a fact
/// the request could not see coming (a clip cut off, trimmed to a messenger's length, scaled up, resampled, lowered
/// to fit, a subject not found) or a message of the decoding library's own.
struct ClipWarnings: Sendable {
    /// The facts the warnings are made of, gathered as the sticker is made.
    struct Facts: Sendable {
        /// The clip's size as it displays, and the long side its frames were cut at.
        var sourceWidth: Int, sourceHeight: Int
        var cutLongSide: Int
        /// What the container declares: its length (seconds) and frame rate.
        var declaredDuration: Double?
        var declaredFrameRate: Double?
        /// What was asked: `start`, `duration` and `fps`.
        var start: Double
        var duration: Double?
        var fps: Double?
        var target: MessengerTarget?
        /// The frame rate the frames were made at (nil: the source's own timing).
        var outputFrameRate: Double?
        /// Source frames read, and where the last one read ends (seconds from the source's start).
        var framesRead = 0
        var readUntil = 0.0
        /// Whether the data ended inside the last frame read (a GIF's or a WebP's: only the rows that came).
        var endsInsideFrame = false
        /// Frames made, and those of them with no subject at all.
        var framesOut = 0
        var framesWithoutSubject = 0
        /// The fitting's first quality and the clip's own rate and length before it, and what it chose.
        var firstQuality: Int?
        var madeFrameRate = 0.0
        var madeDuration = 0.0
        var chosen: AnimationFitting.Attempt?
        /// The decoder's own messages (FFmpeg's log, a codec's complaints).
        var decoderMessages: [String] = []
    }

    /// At most this many of the decoder's messages, after the worker's own.
    static let decoderMessagesAtMost = 5

    static func warnings(_ f: Facts) -> [String] {
        var out: [String] = []
        let s = MotionError.seconds, t = MotionError.tenths
        // Cut off: the frames stop well before the end of the part asked for, which the container says is there.
        if let declared = f.declaredDuration, declared > f.start {
            let asked = f.duration ?? f.target?.animatedMaxDuration ?? .infinity
            let end = min(declared, f.start + asked)
            let frame = 1 / (f.declaredFrameRate ?? 10)
            if f.readUntil < end - max(0.25, 2 * frame) {
                out.append("the clip stops at \(t(f.readUntil)) s though it declares \(t(declared)) s: it may be cut off "
                           + "(\(f.framesRead) frame\(f.framesRead == 1 ? "" : "s") read)")
            }
        }
        // Trimmed to the messenger's length, no duration asked.
        if f.duration == nil, let target = f.target, let declared = f.declaredDuration,
           declared - f.start > target.animatedMaxDuration + 0.05 {
            out.append("the clip is \(t(declared - f.start)) s from its start; \(target.rawValue) takes at most "
                       + "\(s(target.animatedMaxDuration)) s, so its first \(s(target.animatedMaxDuration)) s were used "
                       + "(give start to choose another part)")
        }
        if f.endsInsideFrame {
            out.append("the file ends inside frame \(f.framesRead): it is cut off, and that frame shows only the rows that "
                       + "arrived")
        }
        // Scaled up: a source smaller than the cut.
        let long = max(f.sourceWidth, f.sourceHeight)
        if long > 0, Double(f.cutLongSide) > Double(long) * 1.05 {
            let factor = Double(f.cutLongSide) / Double(long)
            out.append("the \(f.sourceWidth)x\(f.sourceHeight) source was scaled up \(t(factor))x to \(f.cutLongSide) px "
                       + "on its long side (give size to cut it smaller)")
        }
        // Resampled to the frame rate cap, no fps asked.
        if f.fps == nil, let source = f.declaredFrameRate, let made = f.outputFrameRate, made < source - 0.5 {
            out.append("the source's \(t(source)) fps was resampled to \(s(made)) fps")
        }
        // Lowered to fit a messenger's limits.
        if let target = f.target, let chosen = f.chosen {
            let limit = "\(target.rawValue)'s \(target.animatedMaxBytes / 1024) KB"
            if let first = f.firstQuality, chosen.quality < first {
                out.append("quality lowered from \(first) to \(chosen.quality) to fit \(limit)")
            }
            if f.madeFrameRate > 0, chosen.fps < f.madeFrameRate - 0.5 {
                out.append("frame rate lowered from \(t(f.madeFrameRate)) to \(t(chosen.fps)) fps to fit \(limit)")
            }
            if chosen.length < min(f.madeDuration, target.animatedMaxDuration) - 0.01 {
                out.append("cut to \(t(chosen.length)) s of \(t(f.madeDuration)) s to fit \(limit)")
            }
        }
        if f.framesWithoutSubject > 0 {
            out.append("no subject was found in \(f.framesWithoutSubject) of \(f.framesOut) frames (they are left clear)")
        }
        var seen = Set<String>()
        for message in f.decoderMessages where seen.insert(message).inserted {
            guard seen.count <= Self.decoderMessagesAtMost else {
                out.append("the decoder said more (\(f.decoderMessages.count) messages in all)")
                break
            }
            out.append("decoder: \(message)")
        }
        return out
    }
}
