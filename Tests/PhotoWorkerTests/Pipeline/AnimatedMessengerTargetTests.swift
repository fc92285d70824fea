import CCodecs
import CWebMInspection
import Imaging
import Testing
@testable import PhotoWorker

/// Animated stickers fitted to each messenger and read back: every limit the messenger sets.
@Suite("Animated messenger targets", .timeLimit(.minutes(10)))
struct AnimatedMessengerTargetTests {
    /// A sticker-like clip at 512x512: textured noise in a soft ellipse that moves, `frames` at `fps`.
    static func spool(_ target: MessengerTarget, frames: Int, fps: Double) throws -> FrameSpool {
        var spool: FrameSpool?
        var rng = SplitMix64(seed: 3)
        let noise = (0..<(256 * 256)).map { _ in UInt8(rng.next() % 64) }
        for i in 0..<frames {
            var image = Image(width: 384, height: 256)
            for y in 0..<256 {
                for x in 0..<384 {
                    let u = (Double(x) - 150 - Double(i * 3)) / 110, v = (Double(y) - 128) / 100
                    let alpha = max(0, min(1, (1 - (u * u + v * v).squareRoot()) * 30))
                    guard alpha > 0 else { continue }
                    let n = noise[(y % 256) * 256 + (x + i * 5) % 256]
                    image[x, y] = RGBA(r: 80 &+ n, g: UInt8(y / 2) &+ n / 2, b: UInt8(x / 3), a: UInt8(alpha * 255))
                }
            }
            let frame = try target.layoutFrame(image, on: .inTurn)
            if spool == nil { spool = FrameSpool(width: frame.width, height: frame.height) }
            try spool!.append(frame, duration: 1 / fps, on: .inTurn)
        }
        return spool!
    }

    @Test("Telegram: WebM VP9 with alpha, 512 on the long side, at most 3 s, 30 fps, 256 KB, no audio")
    func telegram() throws {
        let spool = try Self.spool(.telegram, frames: 140, fps: 40)  // 3.5 s at 40 fps
        #expect(spool.width == 512 && spool.height == 342)
        let result = try MessengerTarget.telegram.fitAnimation(spool, fps: nil, path: "t.webm", on: .inTurn)
        #expect(result.bytes.count <= MessengerTarget.telegram.animatedMaxBytes, "\(result.bytes.count) bytes")
        var facts = cwi_webm_facts()
        var error = [CChar](repeating: 0, count: 256)
        let status = result.bytes.withUnsafeBufferPointer {
            cwi_webm_inspect($0.baseAddress, $0.count, 0, nil, nil, 0, &facts, &error, error.count)
        }
        #expect(status == CC_OK)
        #expect(facts.audio_streams == 0 && facts.video_streams == 1 && facts.alpha_mode == 1)
        #expect(facts.width == 512 && facts.height == 342)
        #expect(facts.duration_ms <= 3000 && facts.duration_ms >= 2900, "\(facts.duration_ms) ms")
        #expect(Double(facts.frames) / (Double(facts.duration_ms) / 1000) <= 30.01, "\(facts.frames) frames")
        #expect(result.chosen.length <= 3 && result.chosen.fps <= 30)
    }

    @Test("WhatsApp: animated WebP 512x512 in the margin, at most 500 KB and 10 s, frames of at least 8 ms")
    func whatsapp() throws {
        var spool = try Self.spool(.whatsapp, frames: 44, fps: 4)  // 11 s
        for _ in 0..<3 { try spool.append(try MessengerTarget.whatsapp.layoutFrame(Image(width: 10, height: 10), on: .inTurn), duration: 0.004, on: .inTurn) }
        let result = try MessengerTarget.whatsapp.fitAnimation(spool, fps: nil, path: "w.webp", on: .inTurn)
        #expect(result.bytes.count <= MessengerTarget.whatsapp.animatedMaxBytes, "\(result.bytes.count) bytes")
        let info = try ImageCodec.info(result.bytes)
        #expect(info.format == .webp && info.width == 512 && info.height == 512)
        // The margin: nothing drawn in the outer 16 px of the first frame.
        let first = try ImageCodec.decode(result.bytes, on: .inTurn).image
        #expect((0..<512).allSatisfy { first[$0, 8].a == 0 && first[8, $0].a == 0 && first[503, $0].a == 0 })
        #expect(result.chosen.length <= 10)
        // The 4 ms frames at the end were past 10 s and cut; the rest are 250 ms: none under 8 ms.
        #expect(result.chosen.frames == 40, "\(result.attempts.map(\.summary))")
    }

    @Test("WhatsApp: frames under 8 ms inside the clip make it replayed at an even rate, every frame at least 8 ms")
    func whatsappShortFrames() throws {
        var spool = try Self.spool(.whatsapp, frames: 6, fps: 5)
        for _ in 0..<4 { try spool.append(try MessengerTarget.whatsapp.layoutFrame(Image(width: 10, height: 10), on: .inTurn), duration: 0.002, on: .inTurn) }
        let result = try MessengerTarget.whatsapp.fitAnimation(spool, fps: nil, path: "w.webp", on: .inTurn)
        // libwebp merges a frame equal to the one before into it, so the file's own frame count is walked.
        var previous: Int32 = 0, index: Int32 = 0, frames: Int32 = 1
        while index < frames {
            var w: UInt32 = 0, h: UInt32 = 0, loops: Int32 = 0, end: Int32 = 0
            let status = result.bytes.withUnsafeBufferPointer {
                cc_webp_anim_frame_at($0.baseAddress, $0.count, index, nil, 0, &w, &h, &frames, &loops, &end)
            }
            #expect(status == CC_OK && loops == 0)
            #expect(end - previous >= 8, "frame \(index) lasts \(end - previous) ms")
            previous = end
            index += 1
        }
        #expect(previous == 1208, "the clip lasts \(previous) ms")
    }

    @Test("Signal: APNG 512x512, at most 300 KB and 3 s, stepping down until it fits")
    func signal() throws {
        let spool = try Self.spool(.signal, frames: 40, fps: 10)  // 4 s
        var steps: [String] = []
        let result = try MessengerTarget.signal.fitAnimation(spool, fps: nil, path: "s.png", on: .inTurn) { steps.append($0.summary) }
        #expect(result.bytes.count <= MessengerTarget.signal.animatedMaxBytes, "\(result.bytes.count) bytes")
        #expect(result.attempts.count > 1 && steps == result.attempts.map(\.summary), "\(steps)")
        #expect(result.bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let info = try ImageCodec.info(result.bytes)
        #expect(info.width == 512 && info.height == 512)
        #expect(result.chosen.length <= 3)
    }

    @Test("Nothing fitting is an output error naming the limit")
    func tooLarge() throws {
        var spool = FrameSpool(width: 512, height: 512)
        var rng = SplitMix64(seed: 9)
        // Noise changing every frame: no encoder gets it under 300 KB.
        for _ in 0..<4 {
            let pixels = (0..<(512 * 512 * 4)).map { k in k % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: rng.next()) }
            try spool.append(Image(width: 512, height: 512, pixels: pixels), duration: 0.25, on: .inTurn)
        }
        #expect {
            try MessengerTarget.signal.fitAnimation(spool, fps: nil, path: "s.png", on: .inTurn)
        } throws: { error in
            guard case WorkerError.outputFailed(let path, let reason, let rule) = error else { return false }
            return path == "s.png" && rule == "size-limit" && reason.contains("\(MessengerTarget.signal.animatedMaxBytes) bytes")
        }
    }
}
