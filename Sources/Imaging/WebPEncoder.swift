import CCodecs

/// WebP encoding through libwebp: lossless (exact RGB under visible pixels, alpha exact) or lossy (VP8 with a
/// lossless alpha plane). No metadata chunks are written; the pixels are sRGB.
enum WebPEncoder {
    /// WebP's format limit per side.
    static let maxSide = 16383

    static func encode(_ image: Image, lossless: Bool, quality: Int, method: Int?) -> Result<[UInt8], ImagingError> {
        guard (0...100).contains(quality) else {
            return .failure(.encodingFailed(message: "WebP quality must be 0...100, got \(quality)"))
        }
        if let method, !(0...6).contains(method) {
            return .failure(.encodingFailed(message: "WebP method must be 0...6, got \(method)"))
        }
        guard image.width <= maxSide, image.height <= maxSide else {
            return .failure(.encodingFailed(message: "WebP dimensions \(image.width)x\(image.height) exceed \(maxSide)"))
        }
        // Lossless effort 6 would triple the time for ~2% smaller stickers; 4 is libwebp's own default for both.
        let effort = Int32(method ?? 4)
        return image.pixels.withUnsafeBufferPointer { pixels in
            encoded("WebP") { out, length, error in
                cc_webp_encode(pixels.baseAddress, UInt32(image.width), UInt32(image.height), lossless ? 1 : 0,
                               Float(quality), effort, &out, &length, error.baseAddress, error.count)
            }
        }
    }
}
