import CCodecs

/// JPEG encoding through libjpeg-turbo: YCbCr 4:2:0, optimised Huffman tables, baseline or progressive,
/// no EXIF/ICC (metadata is stripped). Alpha is dropped, not composited.
enum JPEGEncoder {
    static func encode(_ image: Image, quality: Int, progressive: Bool) -> Result<[UInt8], ImagingError> {
        guard (1...100).contains(quality) else {
            return .failure(.encodingFailed(message: "JPEG quality must be 1...100, got \(quality)"))
        }
        guard image.width <= 65_500, image.height <= 65_500 else {
            return .failure(.encodingFailed(message:
                "JPEG dimensions \(image.width)x\(image.height) exceed 65500"))
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        var error = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            error.withUnsafeMutableBufferPointer { e in
                cc_jpeg_encode(pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(quality),
                               progressive ? 1 : 0, &out, &length, e.baseAddress, e.count)
            }
        }
        defer { cc_free(out) }
        guard status == CC_OK, let out else {
            let text = error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(.encodingFailed(message: text.isEmpty ? "JPEG encoder failed (status \(status))" : text))
        }
        return .success([UInt8](UnsafeBufferPointer(start: out, count: length)))
    }
}
