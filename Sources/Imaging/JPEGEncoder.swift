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
        return image.pixels.withUnsafeBufferPointer { pixels in
            encoded("JPEG") { out, length, error in
                cc_jpeg_encode(pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(quality),
                               progressive ? 1 : 0, &out, &length, error.baseAddress, error.count)
            }
        }
    }
}
