/// Reads the orientation tag (0x0112) from an EXIF TIFF block.
///
/// EXIF in the wild is often broken (bad offsets, loops, wrong types, truncated IFDs); every read here is
/// bounds-checked and anything odd yields 1 (no rotation) rather than an error, since a photo with bad
/// EXIF is still a photo.
enum ExifOrientation {
    /// `tiff` is the APP1 payload after `Exif\0\0`, starting at the TIFF byte-order mark.
    static func parse(_ tiff: UnsafeRawBufferPointer) -> Int {
        guard tiff.count >= 8 else { return 1 }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return 1
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at <= tiff.count - 2 else { return nil }
            let a = Int(tiff[at]), b = Int(tiff[at + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let lo = u16(little ? at : at + 2), let hi = u16(little ? at + 2 : at) else { return nil }
            return hi << 16 | lo
        }
        guard u16(2) == 42, let ifd = u32(4), ifd >= 8, let count = u16(ifd) else { return 1 }
        // Only IFD0 carries the image orientation; its entries are 12 bytes each.
        for i in 0..<min(count, 1024) {
            let entry = ifd + 2 + i * 12
            guard let tag = u16(entry), let type = u16(entry + 2), let n = u32(entry + 4) else { return 1 }
            guard tag == 0x0112 else { continue }
            let value: Int?
            switch type {
            case 3 where n >= 1: value = u16(entry + 8)          // SHORT, the standard type
            case 4 where n >= 1: value = u32(entry + 8)          // LONG, written by some tools
            default: value = nil
            }
            guard let v = value, (1...8).contains(v) else { return 1 }
            return v
        }
        return 1
    }
}
