/// Maps the colours of later frames to a palette made earlier (APNG has one palette for all its frames): each
/// 15-bit cell to its nearest entry (squared RGB distance from the cell's centre), found the first time the cell
/// is met and kept.
struct PaletteMap {
    /// RGB triples; the transparent index is not among them.
    let palette: [UInt8]
    private var cache = [Int16](repeating: -1, count: 32768)

    init(palette: [UInt8]) {
        self.palette = palette
    }

    /// Palette indices of `image`; pixels with alpha under `alphaThreshold` get `transparentIndex`.
    mutating func indices(of image: Image, alphaThreshold: UInt8, transparentIndex: UInt8) -> [UInt8] {
        var out = [UInt8](repeating: transparentIndex, count: image.pixelCount)
        let entries = palette.count / 3
        guard entries > 0 else { return out }
        image.pixels.withUnsafeBufferPointer { p in
            for k in 0..<out.count where p[k * 4 + 3] >= alphaThreshold {
                let r = p[k * 4], g = p[k * 4 + 1], b = p[k * 4 + 2]
                let cell = Int(r >> 3) << 10 | Int(g >> 3) << 5 | Int(b >> 3)
                if cache[cell] < 0 {
                    let cr = Int(r >> 3) << 3 | 4, cg = Int(g >> 3) << 3 | 4, cb = Int(b >> 3) << 3 | 4
                    var best = 0, bestDistance = Int.max
                    for e in 0..<entries {
                        let dr = cr - Int(palette[e * 3]), dg = cg - Int(palette[e * 3 + 1]), db = cb - Int(palette[e * 3 + 2])
                        let d = dr * dr + dg * dg + db * db
                        if d < bestDistance { (best, bestDistance) = (e, d) }
                    }
                    cache[cell] = Int16(best)
                }
                out[k] = UInt8(cache[cell])
            }
        }
        return out
    }
}
