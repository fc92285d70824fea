import Compute

/// Animated PNG written around ``PNGEncoder``'s compressed data: the first frame is the PNG's own image (IDAT, so a
/// viewer without APNG shows it), later frames are fdAT chunks. acTL, fcTL and fdAT are written here because
/// Debian's libpng has no APNG patch.
///
/// A frame after the first is only the rectangle that changed from the one before (dispose none). When every
/// changed pixel is opaque the rectangle is blended over the canvas with its unchanged pixels transparent, which
/// deflate all but drops; otherwise the rectangle replaces the canvas (blend source). Invisible pixels are
/// written as 0,0,0,0. From quality ``indexedBelow`` up the frames are lossless RGBA; below it they are palette
/// images (a byte a pixel) with one palette for the whole animation, made from the first frame by
/// ``MedianCutQuantizer`` (alpha under 128 transparent, the rest opaque). Posterising RGBA instead was tried and
/// made the files larger: it breaks the smooth residuals PNG's filters leave.
/// The previous frame is kept to compare with: the one frame more the format makes necessary.
public final class APNGEncoder: AnimationEncoder {
    public let format = ImageFormat.apng
    public private(set) var frameCount = 0
    let width: Int, height: Int, quality: Int
    /// zlib level of the frames' data: 9 costs about twice 6's time for a few percent.
    let compressionLevel: Int
    private var out: [UInt8] = []
    private var sequence: UInt32 = 0
    private var previous: [UInt8] = []
    private var actlOffset = 0
    /// Indexed mode: the palette's map and its transparent index (after the colours).
    private var paletteMap: PaletteMap?
    private var transparentIndex: UInt8 = 0

    /// Qualities below this write palette images.
    public static let indexedBelow = 62

    init(width: Int, height: Int, quality: Int, compressionLevel: Int = 9) {
        (self.width, self.height, self.quality, self.compressionLevel) = (width, height, quality, compressionLevel)
    }

    /// Palette colours below ``indexedBelow``: 255 from 50, 128 from 35, 64 from 20, else 32.
    public static func paletteColors(quality: Int) -> Int {
        quality >= 50 ? 255 : quality >= 35 ? 128 : quality >= 20 ? 64 : 32
    }

    public func add(_ frame: Image, duration: Double, on loop: any ParallelLoop) throws {
        try checkFrame(frame, width: width, height: height, duration: duration, format: format)
        var pixels = frame.pixels
        var indices: [UInt8] = []
        if quality < Self.indexedBelow {
            if paletteMap == nil {
                let first = MedianCutQuantizer.quantize(frame, colors: Self.paletteColors(quality: quality),
                                                        alphaThreshold: 128)
                let colors = first.palette.count / 3 - (first.transparentIndex == nil ? 0 : 1)
                paletteMap = PaletteMap(palette: Array(first.palette.prefix(colors * 3)))
                transparentIndex = UInt8(colors)
            }
            indices = paletteMap!.indices(of: frame, alphaThreshold: 128, transparentIndex: transparentIndex)
            // The RGBA the indices stand for, to compare frames with.
            let palette = paletteMap!.palette
            for (k, index) in indices.enumerated() {
                if index == transparentIndex {
                    pixels[k * 4] = 0; pixels[k * 4 + 1] = 0; pixels[k * 4 + 2] = 0; pixels[k * 4 + 3] = 0
                } else {
                    let e = Int(index) * 3
                    pixels[k * 4] = palette[e]; pixels[k * 4 + 1] = palette[e + 1]; pixels[k * 4 + 2] = palette[e + 2]
                    pixels[k * 4 + 3] = 255
                }
            }
        } else {
            Self.clearInvisible(&pixels)
        }
        let (num, den) = Self.delay(duration)
        if frameCount == 0 {
            let png = indices.isEmpty ? try encode(pixels, width: width, height: height, on: loop)
                : try encodeIndexed(indices, width: width, height: height, on: loop)
            let chunks = Self.chunks(png)
            guard let ihdr = chunks.first(where: { $0.type == "IHDR" }) else {
                throw ImagingError.encodingFailed(message: "PNG encoder wrote no IHDR")
            }
            out = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            var header = Array(png[ihdr.data])
            if let paletteMap {
                header[9] = 3  // palette colour type; IDAT is laid out as for 8-bit grey
                appendChunk("IHDR", header)
                appendChunk("PLTE", paletteMap.palette + [0, 0, 0])
                appendChunk("tRNS", [UInt8](repeating: 255, count: Int(transparentIndex)) + [0])
            } else {
                appendChunk("IHDR", header)
            }
            actlOffset = out.count
            appendChunk("acTL", Self.be32(0) + Self.be32(0))  // frame count patched in finish; 0 plays forever
            appendChunk("fcTL", frameControl(width: width, height: height, x: 0, y: 0, num: num, den: den, blendOver: false))
            for chunk in chunks where chunk.type == "IDAT" { appendChunk("IDAT", png[chunk.data]) }
        } else {
            let change = Self.changedRect(pixels, previous, width: width)
            // An unchanged frame still needs its delay: one transparent pixel blended over.
            let rect = change?.rect ?? (x: 0, y: 0, w: 1, h: 1)
            let over = change?.allOpaque ?? true
            let png: [UInt8]
            if indices.isEmpty {
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
                png = try encode(sub, width: rect.w, height: rect.h, on: loop)
            } else {
                var sub = [UInt8](repeating: transparentIndex, count: rect.w * rect.h)
                if change != nil {
                    for row in 0..<rect.h {
                        let s = (rect.y + row) * width + rect.x, d = row * rect.w
                        for i in 0..<rect.w where !over || !Self.same(pixels, previous, (s + i) * 4) {
                            sub[d + i] = indices[s + i]
                        }
                    }
                }
                png = try encodeIndexed(sub, width: rect.w, height: rect.h, on: loop)
            }
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
        paletteMap = nil
        defer { out = [] }
        return out
    }

    // MARK: - Pieces

    private func encode(_ pixels: [UInt8], width: Int, height: Int, on loop: any ParallelLoop) throws -> [UInt8] {
        let level = compressionLevel
        return try pixels.withUnsafeBufferPointer { p in
            try PNGEncoder.write(p, width: width, height: height, inChannels: 4, outChannels: 4, level: level, on: loop)
        }
    }

    /// Palette indices compressed as 8-bit grey: the same IDAT layout as an 8-bit palette image.
    private func encodeIndexed(_ indices: [UInt8], width: Int, height: Int, on loop: any ParallelLoop) throws -> [UInt8] {
        let level = compressionLevel
        return try indices.withUnsafeBufferPointer { p in
            try PNGEncoder.write(p, width: width, height: height, inChannels: 1, outChannels: 1, level: level, on: loop)
        }
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

    /// Clears the colour of invisible pixels, which nothing shows and deflate would otherwise carry.
    static func clearInvisible(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                if p[i + 3] == 0 { p[i] = 0; p[i + 1] = 0; p[i + 2] = 0 }
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
