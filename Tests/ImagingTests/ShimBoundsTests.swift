import CCodecs
import Testing
@testable import Imaging

/// The shims check a caller's buffer and sizes themselves (cc_bounds.h): a buffer too small, a size out of range or
/// a start past any clip is refused with a message, and nothing is written, instead of being trusted.
@Suite("Shim bounds", .timeLimit(.minutes(10)))
struct ShimBoundsTests {
    /// A guard byte past the given capacity must survive the call.
    static let guardByte: UInt8 = 0xA5

    /// pan.mp4 (96x64) opened through the video shim, for the body; the handle is destroyed after it.
    static func withOpenedPan(_ body: (OpaquePointer, cc_motion_info) throws -> Void) throws {
        try MotionCorpus.bytes("pan.mp4").withUnsafeBufferPointer { data in
            let handle = try #require(cc_video_create(data.baseAddress, data.count))
            defer { cc_video_destroy(handle) }
            var info = cc_motion_info()
            #expect(cc_video_open(handle, 1 << 30, 0, 10_000, cc_cancel_check(), &info) == CC_OK)
            try body(handle, info)
        }
    }

    @Test("cc_video_next refuses a buffer that does not hold a frame, and writes nothing")
    func videoNextChecksCapacity() throws {
        try Self.withOpenedPan { handle, info in
            let rowBytes = Int(info.width) * 4, whole = rowBytes * Int(info.height)
            var buffer = [UInt8](repeating: Self.guardByte, count: whole)
            var frame = cc_motion_frame(), got: Int32 = 0
            for (stride, capacity) in [(rowBytes, whole - 1), (rowBytes - 4, whole), (rowBytes, 0)] {
                let status = buffer.withUnsafeMutableBufferPointer {
                    cc_video_next(handle, $0.baseAddress, stride, capacity, &frame, &got, cc_cancel_check())
                }
                #expect(status == CC_INVALID && got == 0, "row \(stride), capacity \(capacity): status \(status)")
                #expect(String(cString: cc_video_message(handle)).contains("frame buffer"))
            }
            #expect(buffer.allSatisfy { $0 == Self.guardByte }, "a refused call wrote into the buffer")
            // The refusals spent no frame: the whole buffer then takes the first one.
            let status = buffer.withUnsafeMutableBufferPointer {
                cc_video_next(handle, $0.baseAddress, rowBytes, whole, &frame, &got, cc_cancel_check())
            }
            #expect(status == CC_OK && got == 1 && frame.time == 0, "status \(status), got \(got), time \(frame.time)")
        }
    }

    @Test("cc_video_set_output_size refuses sizes outside the stream's, and the size handed out stays")
    func videoOutputSizeIsChecked() throws {
        try Self.withOpenedPan { handle, info in
            for (width, height) in [(0, 10), (10, 0), (info.width + 1, info.height), (info.width, info.height + 1)] {
                let status = cc_video_set_output_size(handle, UInt32(width), UInt32(height))
                #expect(status == CC_INVALID, "\(width)x\(height): status \(status)")
            }
            #expect(cc_video_set_output_size(handle, 48, 32) == CC_OK)
            // 48x32 now: a buffer for it is enough, one row short is not.
            var buffer = [UInt8](repeating: 0, count: 48 * 4 * 32)
            var frame = cc_motion_frame(), got: Int32 = 0
            let short = buffer.withUnsafeMutableBufferPointer {
                cc_video_next(handle, $0.baseAddress, 48 * 4, 48 * 4 * 31, &frame, &got, cc_cancel_check())
            }
            let whole = buffer.withUnsafeMutableBufferPointer {
                cc_video_next(handle, $0.baseAddress, 48 * 4, $0.count, &frame, &got, cc_cancel_check())
            }
            #expect(short == CC_INVALID && whole == CC_OK && got == 1, "short \(short), whole \(whole), got \(got)")
        }
    }

    @Test("a start past int64's ticks is refused, not converted", arguments: [1e300, Double.infinity, Double.nan])
    func seekPastAnyClip(_ start: Double) throws {
        try Self.withOpenedPan { handle, _ in
            let status = cc_video_seek(handle, start)
            #expect(status == CC_INVALID, "start \(start): status \(status)")
            #expect(String(cString: cc_video_message(handle)).contains("past any clip"))
        }
        if start.isFinite {  // what a request's `start` reaches (a NaN one is never seeked: it is not > 0)
            let bytes = try MotionCorpus.bytes("pan.mp4")
            #expect(throws: MotionError.self) { _ = try MotionDecoder(bytes: bytes, start: start, on: .inTurn).next(on: .inTurn) }
        }
    }

    @Test("the GIF and WebP readers refuse a buffer that does not hold the canvas")
    func animationNextChecksCapacity() throws {
        let gif = try MotionCorpus.bytes("cutout.gif"), webp = try MotionCorpus.bytes("cutout.webp")
        var frame = cc_motion_frame(), got: Int32 = 0
        try gif.withUnsafeBufferPointer { data in
            let handle = try #require(cc_gif_anim_create(data.baseAddress, data.count))
            defer { cc_gif_anim_destroy(handle) }
            var info = cc_motion_info()
            #expect(cc_gif_anim_open(handle, 10_000, &info) == CC_OK)
            let rowBytes = Int(info.width) * 4
            var buffer = [UInt8](repeating: Self.guardByte, count: rowBytes * Int(info.height))
            let status = buffer.withUnsafeMutableBufferPointer {
                cc_gif_anim_next(handle, $0.baseAddress, rowBytes, $0.count - 1, &frame, &got, cc_cancel_check())
            }
            #expect(status == CC_INVALID && got == 0, "GIF: status \(status)")
            #expect(buffer.allSatisfy { $0 == Self.guardByte }, "a refused GIF call wrote into the buffer")
        }
        try webp.withUnsafeBufferPointer { data in
            let handle = try #require(cc_webp_anim_create(data.baseAddress, data.count))
            defer { cc_webp_anim_destroy(handle) }
            var info = cc_motion_info()
            #expect(cc_webp_anim_open(handle, &info) == CC_OK)
            let rowBytes = Int(info.width) * 4
            var buffer = [UInt8](repeating: Self.guardByte, count: rowBytes * Int(info.height))
            let status = buffer.withUnsafeMutableBufferPointer {
                cc_webp_anim_next(handle, $0.baseAddress, rowBytes, $0.count - 1, &frame, &got)
            }
            #expect(status == CC_INVALID && got == 0, "WebP: status \(status)")
            #expect(buffer.allSatisfy { $0 == Self.guardByte }, "a refused WebP call wrote into the buffer")
        }
    }

    @Test("a WebM encoder that fails to open says why each time it is used, and refuses a frame too small")
    func webmOpenFailureIsKept() throws {
        // A 0x0 stream: libvpx-vp9 refuses to open it.
        let broken = try #require(cc_webm_create(0, 0, 30, 8, 60))
        defer { cc_webm_destroy(broken) }
        let first = cc_webm_open(broken)
        let message = String(cString: cc_webm_message(broken))
        let pixel: [UInt8] = [0, 0, 0, 0]
        let again = cc_webm_open(broken)
        let added = pixel.withUnsafeBufferPointer { cc_webm_add(broken, $0.baseAddress, $0.count, 0, 100) }
        var out: UnsafeMutablePointer<UInt8>?, length = 0
        let finished = cc_webm_finish(broken, &out, &length)
        #expect(first != CC_OK && again == first && added == first && finished == first,
                "open \(first), again \(again), add \(added), finish \(finished)")
        #expect(!message.isEmpty && String(cString: cc_webm_message(broken)) == message, "\(message)")

        let webm = try #require(cc_webm_create(16, 16, 30, 8, 60))
        defer { cc_webm_destroy(webm) }
        let frame = [UInt8](repeating: 255, count: 16 * 16 * 4)
        let short = frame.withUnsafeBufferPointer { cc_webm_add(webm, $0.baseAddress, $0.count - 1, 0, 100) }
        let whole = frame.withUnsafeBufferPointer { cc_webm_add(webm, $0.baseAddress, $0.count, 0, 100) }
        #expect(short == CC_INVALID && whole == CC_OK, "short \(short), whole \(whole)")
    }

    @Test("the still decoders refuse a buffer one byte short of the picture, and write nothing")
    func stillDecodersCheckCapacity() throws {
        func short(_ width: UInt32, _ height: UInt32) -> [UInt8] {
            [UInt8](repeating: Self.guardByte, count: Int(width) * 4 * Int(height) - 1)
        }
        var remaining: UInt32 = 0
        try CodecCorpus.bytes("photos/chelsea.png").withUnsafeBufferPointer { data in
            let p = try #require(cc_png_create(data.baseAddress, data.count))
            defer { cc_png_destroy(p) }
            var header = cc_header()
            #expect(cc_png_read_header(p, &header) == CC_OK && cc_png_start(p) == CC_OK)
            let rowBytes = Int(header.width) * 4
            var buffer = short(header.width, header.height)
            let status = buffer.withUnsafeMutableBufferPointer {
                cc_png_read_rows(p, $0.baseAddress, rowBytes, $0.count, 1_000_000, &remaining)
            }
            #expect(status == CC_INVALID && buffer.allSatisfy { $0 == Self.guardByte }, "PNG: status \(status)")
        }
        try CodecCorpus.bytes("photos/animal-1.jpg").withUnsafeBufferPointer { data in
            let j = try #require(cc_jpeg_create(data.baseAddress, data.count, 1 << 30))
            defer { cc_jpeg_destroy(j) }
            var header = cc_header(), width: UInt32 = 0, height: UInt32 = 0
            #expect(cc_jpeg_read_header(j, &header) == CC_OK && cc_jpeg_start(j, 8, &width, &height) == CC_OK)
            let rowBytes = Int(width) * 4
            var buffer = short(width, height)
            let status = buffer.withUnsafeMutableBufferPointer {
                cc_jpeg_read_rows(j, $0.baseAddress, rowBytes, $0.count, 1_000_000, &remaining)
            }
            #expect(status == CC_INVALID && buffer.allSatisfy { $0 == Self.guardByte }, "JPEG: status \(status)")
        }
        try CodecCorpus.bytes("formats/girl-lossy.webp").withUnsafeBufferPointer { data in
            let w = try #require(cc_webp_create(data.baseAddress, data.count))
            defer { cc_webp_destroy(w) }
            var info = cc_frame_info()
            #expect(cc_webp_open(w, &info) == CC_OK)
            let rowBytes = Int(info.width) * 4
            var buffer = short(info.width, info.height)
            let status = buffer.withUnsafeMutableBufferPointer { cc_webp_decode(w, $0.baseAddress, rowBytes, $0.count, cc_cancel_check()) }
            #expect(status == CC_INVALID && buffer.allSatisfy { $0 == Self.guardByte }, "WebP: status \(status)")
        }
        try CodecCorpus.bytes("formats/girl.gif").withUnsafeBufferPointer { data in
            let g = try #require(cc_gif_create(data.baseAddress, data.count))
            defer { cc_gif_destroy(g) }
            var info = cc_frame_info()
            #expect(cc_gif_open(g, 0, &info) == CC_OK)
            let rowBytes = Int(info.width) * 4
            var buffer = short(info.width, info.height)
            let status = buffer.withUnsafeMutableBufferPointer { cc_gif_decode(g, $0.baseAddress, rowBytes, $0.count, cc_cancel_check()) }
            #expect(status == CC_INVALID && buffer.allSatisfy { $0 == Self.guardByte }, "GIF: status \(status)")
        }
    }
}
