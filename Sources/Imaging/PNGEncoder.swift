import CCodecs

/// PNG encoding through libpng: 8-bit, no interlacing, no ancillary chunks (metadata is stripped).
enum PNGEncoder {
    static func encode(_ image: Image, compressionLevel: Int) -> Result<[UInt8], ImagingError> {
        guard (0...9).contains(compressionLevel) else {
            return .failure(.encodingFailed(message: "PNG compression level must be 0...9, got \(compressionLevel)"))
        }
        let channels: Int32 = image.isOpaque ? 3 : 4
        return image.pixels.withUnsafeBufferPointer { pixels in
            write(pixels, width: image.width, height: image.height, inChannels: 4, outChannels: channels,
                  level: compressionLevel)
        }
    }

    static func encodeGray(width: Int, height: Int, gray: [UInt8], compressionLevel: Int = 6)
        -> Result<[UInt8], ImagingError>
    {
        guard width > 0, height > 0, pixelCount(width, height) == gray.count else {
            return .failure(.encodingFailed(message:
                "grey buffer of \(gray.count) bytes does not match \(width)x\(height)"))
        }
        return gray.withUnsafeBufferPointer { pixels in
            write(pixels, width: width, height: height, inChannels: 1, outChannels: 1, level: compressionLevel)
        }
    }

    private static func write(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, inChannels: Int32,
                              outChannels: Int32, level: Int) -> Result<[UInt8], ImagingError> {
        // PNG allows 2^31-1; libpng's default write limit is 1,000,000 per side.
        guard width <= 1_000_000, height <= 1_000_000 else {
            return .failure(.encodingFailed(message: "PNG dimensions \(width)x\(height) exceed 1000000"))
        }
        return encoded("PNG") { out, length, error in
            cc_png_encode(pixels.baseAddress, UInt32(width), UInt32(height), inChannels, outChannels, Int32(level),
                          &out, &length, error.baseAddress, error.count)
        }
    }
}
