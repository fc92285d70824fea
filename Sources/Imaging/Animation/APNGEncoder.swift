/// Animated PNG written around ``PNGEncoder``'s compressed data: the first frame is the PNG's own image (IDAT, so a
/// viewer without APNG shows it), later frames are fdAT chunks. acTL, fcTL and fdAT are written here because
/// Debian's libpng has no APNG patch.
///
/// A frame after the first is only the rectangle that changed from the one before (dispose none). When every
/// changed pixel is opaque the rectangle is blended over the canvas with its unchanged pixels transparent, which
/// deflate all but drops; otherwise the rectangle replaces the canvas (blend source). Below quality 100 each
/// channel is posterised to fewer bits first, so more pixels repeat. Invisible pixels are written as 0,0,0,0.
/// The previous frame is kept to compare with: the one frame more the format makes necessary.
public final class APNGEncoder: AnimationEncoder {
    public let format = AnimationFormat.apng
    public private(set) var frameCount = 0
    let width: Int, height: Int, quality: Int
    /// zlib level of the frames' data: 9 costs about twice 6's time for a few percent.
    let compressionLevel: Int
    private var out: [UInt8] = []
    private var sequence: UInt32 = 0
    private var previous: [UInt8] = []
    private var actlOffset = 0

    init(width: Int, height: Int, quality: Int, compressionLevel: Int = 9) {
        (self.width, self.height, self.quality, self.compressionLevel) = (width, height, quality, compressionLevel)
    }

    /// Bits kept per channel at `quality`: 8 at 100, one fewer for every 12.5 below it, at least 3.
    public static func bits(quality: Int) -> Int {
        quality >= 100 ? 8 : max(3, min(7, Int((Double(quality) / 12.5).rounded(.up))))
    }

    public func add(_ frame: Image, duration: Double) throws(ImagingError) {
        try checkFrame(frame, width: width, height: height, duration: duration, format: format)
        var pixels = frame.pixels
        Self.prepare(&pixels, bits: Self.bits(quality: quality))
        let (num, den) = Self.delay(duration)
        if frameCount == 0 {
            let png = try encode(pixels, width: width, height: height)
            let chunks = Self.chunks(png)
            guard let ihdr = chunks.first(where: { $0.type == "IHDR" }) else {
                throw .encodingFailed(message: "PNG encoder wrote no IHDR")
            }
            out = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            appendChunk("IHDR", png[ihdr.data])
            actlOffset = out.count
            appendChunk("acTL", Self.be32(0) + Self.be32(0))  // frame count patched in finish; 0 plays forever
            appendChunk("fcTL", frameControl(width: width, height: height, x: 0, y: 0, num: num, den: den, blendOver: false))
            for chunk in chunks where chunk.type == "IDAT" { appendChunk("IDAT", png[chunk.data]) }
        } else {
            let change = Self.changedRect(pixels, previous, width: width)
            // An unchanged frame still needs its delay: one transparent pixel blended over.
            let rect = change?.rect ?? (x: 0, y: 0, w: 1, h: 1)
            let over = change?.allOpaque ?? true
            var sub = [UInt8](repeating: 0, count: rect.w * rect.h * 4)
            if change != nil {
                for row in 0..<rect.h {
                    let s = ((rect.y + row) * width + rect.x) * 4, d = row * rect.w * 4
                    for i in stride(from: 0, to: rect.w * 4, by: 4) where !over || !Self.same(pixels, previous, s + i) {
                        sub[d + i] = pixels[s + i]; sub[d + i + 1] = pixels[s + i + 1]
                        sub[d + i + 2] = pixels[s + i + 2]; sub[d + i + 3] = pixels[s + i + 3]
                    }
                }
            }
            let png = try encode(sub, width: rect.w, height: rect.h)
            appendChunk("fcTL", frameControl(width: rect.w, height: rect.h, x: rect.x, y: rect.y, num: num, den: den,
                                             blendOver: over))
            for chunk in Self.chunks(png) where chunk.type == "IDAT" {
                appendChunk("fdAT", Self.be32(sequence) + png[chunk.data])
                sequence += 1
            }
        }
        previous = pixels
        frameCount += 1
    }

    public func finish() throws(ImagingError) -> [UInt8] {
        guard frameCount > 0 else { throw .encodingFailed(message: "APNG has no frames") }
        let count = Self.be32(UInt32(frameCount))
        out.replaceSubrange((actlOffset + 8)..<(actlOffset + 12), with: count)
        let crc = CRC32.update(0, out[(actlOffset + 4)..<(actlOffset + 16)])
        out.replaceSubrange((actlOffset + 16)..<(actlOffset + 20), with: Self.be32(crc))
        appendChunk("IEND", [])
        previous = []
        defer { out = [] }
        return out
    }

    // MARK: - Pieces

    private func encode(_ pixels: [UInt8], width: Int, height: Int) throws(ImagingError) -> [UInt8] {
        let level = compressionLevel
        return try pixels.withUnsafeBufferPointer { p in
            PNGEncoder.write(p, width: width, height: height, inChannels: 4, outChannels: 4, level: level)
        }.get()
    }

    /// fcTL's data: sequence number, size, offset, delay, dispose none, blend source or over.
    private func frameControl(width: Int, height: Int, x: Int, y: Int, num: UInt16, den: UInt16, blendOver: Bool)
        -> [UInt8]
    {
        defer { sequence += 1 }
        return Self.be32(sequence) + Self.be32(UInt32(width)) + Self.be32(UInt32(height)) + Self.be32(UInt32(x))
            + Self.be32(UInt32(y)) + [UInt8(num >> 8), UInt8(num & 0xFF), UInt8(den >> 8), UInt8(den & 0xFF)]
            + [0, blendOver ? 1 : 0]
    }

    private func appendChunk(_ type: String, _ data: some Collection<UInt8>) {
        out += Self.be32(UInt32(data.count))
        let start = out.count
        out += Array(type.utf8)
        out += data
        out += Self.be32(CRC32.update(0, out[start...]))
    }

    /// A delay as a fraction with 16-bit terms: milliseconds, or coarser units for delays over 65 s.
    static func delay(_ seconds: Double) -> (UInt16, UInt16) {
        for den in [1000, 100, 10, 1] {
            let num = (seconds * Double(den)).rounded()
            if num <= 65535 { return (UInt16(max(1, num)), UInt16(den)) }
        }
        return (65535, 1)
    }

    /// Posterises to `bits` per channel (the kept bits repeated below, so 255 stays 255) and clears the colour of
    /// invisible pixels.
    static func prepare(_ pixels: inout [UInt8], bits: Int) {
        let shift = UInt8(8 - bits)
        pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                if p[i + 3] == 0 {
                    p[i] = 0; p[i + 1] = 0; p[i + 2] = 0
                } else if shift > 0 {
                    for c in 0..<4 {
                        let high = (p[i + c] >> shift) << shift
                        var v = high, s = Int(bits)
                        while s < 8 { v |= high >> UInt8(s); s += bits }
                        p[i + c] = v
                    }
                }
                i += 4
            }
        }
    }

    @inline(__always) static func same(_ a: [UInt8], _ b: [UInt8], _ i: Int) -> Bool {
        a[i] == b[i] && a[i + 1] == b[i + 1] && a[i + 2] == b[i + 2] && a[i + 3] == b[i + 3]
    }

    /// The bounding rectangle of the pixels that differ, and whether all of them are opaque in `now`; nil when none.
    static func changedRect(_ now: [UInt8], _ before: [UInt8], width: Int)
        -> (rect: (x: Int, y: Int, w: Int, h: Int), allOpaque: Bool)?
    {
        let height = now.count / 4 / width
        var x0 = width, x1 = -1, y0 = height, y1 = -1, opaque = true
        now.withUnsafeBufferPointer { a in
            before.withUnsafeBufferPointer { b in
                a.withMemoryRebound(to: UInt32.self) { a32 in
                    b.withMemoryRebound(to: UInt32.self) { b32 in
                        for y in 0..<height {
                            let row = y * width
                            for x in 0..<width where a32[row + x] != b32[row + x] {
                                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                                if a[(row + x) * 4 + 3] != 255 { opaque = false }
                            }
                        }
                    }
                }
            }
        }
        guard x1 >= 0 else { return nil }
        return ((x0, y0, x1 - x0 + 1, y1 - y0 + 1), opaque)
    }

    /// The chunks of a PNG: type and the range of its data.
    static func chunks(_ png: [UInt8]) -> [(type: String, data: Range<Int>)] {
        var result: [(String, Range<Int>)] = [], i = 8
        while i + 12 <= png.count {
            let length = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            guard i + 12 + length <= png.count else { break }
            result.append((String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self), (i + 8)..<(i + 8 + length)))
            i += 12 + length
        }
        return result
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}
