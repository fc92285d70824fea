/// One frame's colours reduced to a palette by median cut (Heckbert) over a 15-bit histogram, for GIF.
///
/// Pixels with alpha under the threshold go to one transparent index after the colours. The palette entries are
/// the count-weighted means of the full 8-bit colours that fell into each box, so flat areas keep their exact
/// colour; each histogram cell is mapped to its nearest entry (squared RGB distance). No dithering: it would make
/// consecutive frames differ everywhere and the LZW data grow.
public enum MedianCutQuantizer {
    /// Palette indices (one per pixel), the palette (RGB triples) and the transparent index if any pixel is one.
    public struct Result: Sendable {
        public var indices: [UInt8]
        public var palette: [UInt8]
        public var transparentIndex: Int?
    }

    private struct Box {
        var cells: [Int32]
        var count: Int
        var longestAxis: Int
        var range: Int
    }

    /// - Parameter colors: 1...255 colours for the opaque pixels.
    public static func quantize(_ image: Image, colors: Int, alphaThreshold: UInt8) -> Result {
        let colors = max(1, min(255, colors))
        var counts = [Int](repeating: 0, count: 32768)
        var sums = [Int](repeating: 0, count: 32768 * 3)
        var transparent = false
        image.pixels.withUnsafeBufferPointer { p in
            var i = 0
            while i < p.count {
                if p[i + 3] < alphaThreshold {
                    transparent = true
                } else {
                    let cell = cellIndex(p[i], p[i + 1], p[i + 2])
                    counts[cell] += 1
                    sums[cell * 3] += Int(p[i]); sums[cell * 3 + 1] += Int(p[i + 1]); sums[cell * 3 + 2] += Int(p[i + 2])
                }
                i += 4
            }
        }
        let used = (0..<32768).filter { counts[$0] > 0 }.map { Int32($0) }
        var boxes = used.isEmpty ? [] : [makeBox(used, counts: counts)]
        while boxes.count < colors {
            // The box to split: most pixels times widest side; one cell cannot be split.
            guard let pick = boxes.indices.filter({ boxes[$0].cells.count > 1 })
                .max(by: { boxes[$0].count * boxes[$0].range < boxes[$1].count * boxes[$1].range }) else { break }
            let box = boxes[pick]
            let axis = box.longestAxis
            let sorted = box.cells.sorted { component(Int($0), axis) < component(Int($1), axis) }
            var half = 0, split = 1
            for (k, cell) in sorted.enumerated() {
                half += counts[Int(cell)]
                if half * 2 >= box.count { split = max(1, min(sorted.count - 1, k + 1)); break }
            }
            boxes[pick] = makeBox(Array(sorted[..<split]), counts: counts)
            boxes.append(makeBox(Array(sorted[split...]), counts: counts))
        }
        var palette: [UInt8] = []
        var cellToIndex = [UInt8](repeating: 0, count: 32768)
        for box in boxes {
            var r = 0, g = 0, b = 0
            for cell in box.cells {
                r += sums[Int(cell) * 3]; g += sums[Int(cell) * 3 + 1]; b += sums[Int(cell) * 3 + 2]
            }
            let n = max(1, box.count)
            palette += [UInt8((r + n / 2) / n), UInt8((g + n / 2) / n), UInt8((b + n / 2) / n)]
        }
        // Each used cell to the entry nearest its own mean colour (a cell's box is not always its nearest entry).
        let entries = palette.count / 3
        for cell in used {
            let c = Int(cell), n = counts[c]
            let r = sums[c * 3] / n, g = sums[c * 3 + 1] / n, b = sums[c * 3 + 2] / n
            var best = 0, bestDistance = Int.max
            for e in 0..<entries {
                let dr = r - Int(palette[e * 3]), dg = g - Int(palette[e * 3 + 1]), db = b - Int(palette[e * 3 + 2])
                let d = dr * dr + dg * dg + db * db
                if d < bestDistance { (best, bestDistance) = (e, d) }
            }
            cellToIndex[c] = UInt8(best)
        }
        let transparentIndex = transparent || entries == 0 ? entries : nil
        if transparentIndex != nil { palette += [0, 0, 0] }
        var indices = [UInt8](repeating: 0, count: image.pixelCount)
        image.pixels.withUnsafeBufferPointer { p in
            indices.withUnsafeMutableBufferPointer { out in
                for k in 0..<out.count {
                    let i = k * 4
                    out[k] = p[i + 3] < alphaThreshold ? UInt8(entries) : cellToIndex[cellIndex(p[i], p[i + 1], p[i + 2])]
                }
            }
        }
        return Result(indices: indices, palette: palette, transparentIndex: transparentIndex)
    }

    @inline(__always) private static func cellIndex(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        Int(r >> 3) << 10 | Int(g >> 3) << 5 | Int(b >> 3)
    }

    @inline(__always) private static func component(_ cell: Int, _ axis: Int) -> Int {
        (cell >> (10 - 5 * axis)) & 31
    }

    private static func makeBox(_ cells: [Int32], counts: [Int]) -> Box {
        var low = [31, 31, 31], high = [0, 0, 0], count = 0
        for cell in cells {
            count += counts[Int(cell)]
            for axis in 0..<3 {
                let v = component(Int(cell), axis)
                low[axis] = min(low[axis], v); high[axis] = max(high[axis], v)
            }
        }
        let ranges = (0..<3).map { high[$0] - low[$0] }
        let axis = ranges.firstIndex(of: ranges.max()!)!
        return Box(cells: cells, count: count, longestAxis: axis, range: ranges[axis])
    }
}
