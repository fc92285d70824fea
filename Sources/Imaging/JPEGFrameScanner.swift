/// Finds the frame header (SOFn) of a JPEG by walking its marker segments, without libjpeg.
///
/// Used only for `ImageCodec.info` on files libjpeg refuses to parse at all (12-bit precision), so the
/// caller still learns the size and depth before `decode` reports them as unsupported.
enum JPEGFrameScanner {
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> ImageInfo? {
        var i = 2   // after SOI
        var orientation = 1
        while i + 4 <= bytes.count {
            guard bytes[i] == 0xFF else { return nil }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue }               // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }   // no length
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2, i + 2 + length <= bytes.count else { return nil }
            let body = i + 4
            if marker == 0xE1, length >= 8, bytes[body] == 0x45, bytes[body + 1] == 0x78, bytes[body + 2] == 0x69,
               bytes[body + 3] == 0x66, bytes[body + 4] == 0, bytes[body + 5] == 0 {
                orientation = ExifOrientation.parse(UnsafeRawBufferPointer(
                    rebasing: UnsafeRawBufferPointer(bytes)[(body + 6)..<(i + 2 + length)]))
            }
            let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isFrame {
                guard length >= 8 else { return nil }
                let precision = Int(bytes[body])
                let h = Int(bytes[body + 1]) << 8 | Int(bytes[body + 2])
                let w = Int(bytes[body + 3]) << 8 | Int(bytes[body + 4])
                let components = Int(bytes[body + 5])
                let swaps = Orientation(rawValue: orientation)?.swapsAxes ?? false
                return ImageInfo(
                    format: .jpeg, width: swaps ? h : w, height: swaps ? w : h, storedWidth: w, storedHeight: h,
                    channels: components, bitDepth: precision, hasAlpha: false, orientation: orientation,
                    isProgressive: marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE,
                    isInterlaced: false, iccProfileBytes: 0)
            }
            i += 2 + length
        }
        return nil
    }
}
