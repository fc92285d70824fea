import Compute
import CCodecs

/// GIF through giflib (CCodecs' cc_gif_encode.c): each frame full-screen with its own palette from
/// ``MedianCutQuantizer``, pixels under the alpha threshold on the one transparent index, delays in centiseconds
/// (rounded on the running total, so the length never drifts), NETSCAPE2.0 looping forever.
public final class GIFEncoder: AnimationEncoder {
    public let format = ImageFormat.gif
    public private(set) var frameCount = 0
    let width: Int, height: Int, colors: Int, alphaThreshold: UInt8
    private let handle: OpaquePointer?
    private var elapsed = 0.0

    /// Palette colours at `quality` (besides the transparent index): 2 at 0 up to 255 at 100.
    public static func colors(quality: Int) -> Int { max(2, min(255, 2 + (quality * 253 + 50) / 100)) }

    init(width: Int, height: Int, quality: Int, alphaThreshold: UInt8) {
        (self.width, self.height, self.alphaThreshold) = (width, height, max(1, alphaThreshold))
        colors = Self.colors(quality: quality)
        handle = cc_gif_out_create(UInt32(width), UInt32(height))
    }

    deinit { cc_gif_out_destroy(handle) }

    public func add(_ frame: Image, duration: Double, on loop: any ParallelLoop) throws(ImagingError) {
        try checkFrame(frame, width: width, height: height, duration: duration, format: format)
        guard let handle else { throw .encodingFailed(message: "GIF encoder: out of memory") }
        let start = Int((elapsed * 100).rounded()), end = Int(((elapsed + duration) * 100).rounded())
        guard end - start <= 65535 else { throw .encodingFailed(message: "GIF frame delay over 655.35 s") }
        let quantized = MedianCutQuantizer.quantize(frame, colors: colors, alphaThreshold: alphaThreshold)
        let status = quantized.indices.withUnsafeBufferPointer { indices in
            quantized.palette.withUnsafeBufferPointer { palette in
                cc_gif_out_add(handle, indices.baseAddress, palette.baseAddress, Int32(quantized.palette.count / 3),
                               Int32(quantized.transparentIndex ?? -1), Int32(end - start))
            }
        }
        guard status == CC_OK else { throw failure(status) }
        elapsed += duration
        frameCount += 1
    }

    public func finish() throws(ImagingError) -> [UInt8] {
        guard let handle, frameCount > 0 else { throw .encodingFailed(message: "GIF has no frames") }
        return try encoded("GIF") { out, length, _ in cc_gif_out_finish(handle, &out, &length) }
            .mapError { _ in failure(Int32(CC_INVALID)) }.get()
    }

    private func failure(_ status: Int32) -> ImagingError {
        let text = handle.map { String(cString: cc_gif_out_message($0)) } ?? ""
        return .encodingFailed(message: "GIF: \(text.isEmpty ? "status \(status)" : text)")
    }
}
