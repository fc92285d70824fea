import Compute

/// Frontal faces in a photo: OpenCV's Haar cascade (`HaarCascade.frontalFace`) run the way OpenCV's
/// `detectMultiScale` runs it, on a histogram-equalised grey copy at most `maxSide` pixels long:
/// an image pyramid in steps of `scaleFactor`, windows 2 pixels apart below scale 2 and 1 pixel apart
/// above, then OpenCV's `groupRectangles` (overlapping hits merged, groups of `minNeighbors` or fewer
/// dropped, small groups inside larger ones dropped).
///
/// The sticker pipeline uses the faces as an object-level prior that no bottom-up cue supplies:
/// a person's body below a face belongs to the subject (`PersonPrior`).
public enum FaceDetector {
    /// Whether faces can be looked for at all: false when the cascade's resource is missing or damaged (a worker
    /// installed without its bundle), when ``detect(in:maxSide:scaleFactor:minNeighbors:minRelativeSize:)`` finds
    /// none in any photo.
    public static var isAvailable: Bool { HaarCascade.frontalFace != nil }

    /// Face boxes in `image`'s pixel coordinates, largest first.
    /// - Parameters:
    ///   - maxSide: the longest side of the grey copy searched (clamped to 24...2048); faces smaller
    ///     than the cascade's window (20 px) at that size are not found.
    ///   - scaleFactor: the pyramid step (at least 1.01).
    ///   - minNeighbors: hits a face needs beyond the first (OpenCV's parameter of the same name).
    ///   - minRelativeSize: the smallest face looked for, as a fraction of the image's shorter side.
    /// - Throws: `CancellationError` (checked per band of rows).
    public static func detect(in image: Image, maxSide: Int = 480, scaleFactor: Double = 1.1,
                       minNeighbors: Int = 5, minRelativeSize: Double = 0, on loop: some ParallelLoop) throws -> [PixelRect] {
        guard let cascade = HaarCascade.frontalFace, image.width >= 8, image.height >= 8 else { return [] }
        // The integral image is Int32: 2048² × 255 still fits. A factor at or below 1 would never end.
        let maxSide = min(2048, max(24, maxSide)), scaleFactor = max(1.01, scaleFactor)
        let (w, h, rgba) = try PlaneResampler.reduced(image, maxSide: maxSide, on: loop)
        let grey = equalised(luma(rgba, count: w * h))
        var hits: [PixelRect] = []
        var factor = 1.0
        while true {
            if loop.isCancelled { throw CancellationError() }
            let lw = Int((Double(w) / factor).rounded()), lh = Int((Double(h) / factor).rounded())
            if lw < cascade.windowWidth || lh < cascade.windowHeight { break }
            let windowW = Int((Double(cascade.windowWidth) * factor).rounded())
            let windowH = Int((Double(cascade.windowHeight) * factor).rounded())
            // Levels whose window is below the smallest face wanted cost the most (the largest
            // images, the densest windows) and are skipped.
            if Double(min(windowW, windowH)) < minRelativeSize * Double(min(w, h)) { factor *= scaleFactor; continue }
            let level = factor == 1 ? grey : bilinear(grey, width: w, height: h, to: lw, lh)
            let (sum, squares) = integrals(level, width: lw, height: lh)
            for (x, y) in try cascade.scan(sum: sum, squares: squares, width: lw, height: lh, step: factor >= 2 ? 1 : 2, on: loop) {
                hits.append(PixelRect(x: Int((Double(x) * factor).rounded()), y: Int((Double(y) * factor).rounded()),
                                      width: windowW, height: windowH))
            }
            factor *= scaleFactor
        }
        let inverse = Double(max(image.width, image.height)) / Double(max(w, h))  // 1 / the reduction scale
        return group(hits, minNeighbors: minNeighbors, eps: 0.2)
            .map { r in
                PixelRect(x: Int((Double(r.x) * inverse).rounded()), y: Int((Double(r.y) * inverse).rounded()),
                          width: Int((Double(r.width) * inverse).rounded()),
                          height: Int((Double(r.height) * inverse).rounded()))
            }
            .sorted { $0.width * $0.height > $1.width * $1.height }
    }

    /// Luma (`ColorScience.luma601`) of RGBA samples on the 0...255 scale, rounded to bytes.
    static func luma(_ rgba: [Float], count: Int) -> [UInt8] {
        var grey = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            let v = ColorScience.luma601(rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2])
            grey[i] = UInt8(max(0, min(255, v.rounded())))
        }
        return grey
    }

    /// OpenCV's `equalizeHist`: the cumulative histogram, starting from the first occupied level, as
    /// a lookup table. Equalising makes the cascade's thresholds hold in dim and flat photos.
    static func equalised(_ grey: [UInt8]) -> [UInt8] {
        var histogram = [Int](repeating: 0, count: 256)
        for v in grey { histogram[Int(v)] += 1 }
        guard let first = histogram.firstIndex(where: { $0 > 0 }) else { return grey }
        if histogram[first] == grey.count { return grey }
        let scale = 255 / Float(grey.count - histogram[first])
        var table = [UInt8](repeating: 0, count: 256)
        var running = 0
        for level in (first + 1)..<256 {
            running += histogram[level]
            table[level] = UInt8(min(255, (Float(running) * scale).rounded()))
        }
        return grey.map { table[Int($0)] }
    }

    /// Bilinear resampling with pixel centres aligned (OpenCV's `INTER_LINEAR` geometry).
    static func bilinear(_ src: [UInt8], width w: Int, height h: Int, to tw: Int, _ th: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: tw * th)
        let sx = Float(w) / Float(tw), sy = Float(h) / Float(th)
        var x0s = [Int](repeating: 0, count: tw), fxs = [Float](repeating: 0, count: tw)
        for x in 0..<tw {
            let fx = max(0, (Float(x) + 0.5) * sx - 0.5)
            x0s[x] = min(w - 1, Int(fx)); fxs[x] = fx - Float(x0s[x])
        }
        src.withUnsafeBufferPointer { s in
            for y in 0..<th {
                let fy = max(0, (Float(y) + 0.5) * sy - 0.5)
                let y0 = min(h - 1, Int(fy)), y1 = min(h - 1, y0 + 1), ty = fy - Float(y0)
                for x in 0..<tw {
                    let x0 = x0s[x], x1 = min(w - 1, x0 + 1), tx = fxs[x]
                    let top = Float(s[y0 * w + x0]) * (1 - tx) + Float(s[y0 * w + x1]) * tx
                    let bottom = Float(s[y1 * w + x0]) * (1 - tx) + Float(s[y1 * w + x1]) * tx
                    out[y * tw + x] = UInt8(min(255, (top * (1 - ty) + bottom * ty).rounded()))
                }
            }
        }
        return out
    }

    /// Integral images of the pixels and of their squares, `width + 1` entries per row, first row
    /// and column zero. Int32 holds the sum of 255 over 8.4 M pixels, above the 2048² copy `detect` allows.
    static func integrals(_ grey: [UInt8], width w: Int, height h: Int) -> (sum: [Int32], squares: [Double]) {
        let stride = w + 1
        var sum = [Int32](repeating: 0, count: stride * (h + 1))
        var squares = [Double](repeating: 0, count: stride * (h + 1))
        for y in 0..<h {
            var rowSum: Int32 = 0, rowSquares: Double = 0
            for x in 0..<w {
                let v = Int32(grey[y * w + x])
                rowSum += v; rowSquares += Double(v * v)
                sum[(y + 1) * stride + x + 1] = sum[y * stride + x + 1] + rowSum
                squares[(y + 1) * stride + x + 1] = squares[y * stride + x + 1] + rowSquares
            }
        }
        return (sum, squares)
    }

    /// OpenCV's `groupRectangles`: hits whose sides all lie within `eps` × their mean size of each
    /// other form one group (transitively); a group with more than `minNeighbors` hits becomes its mean
    /// rectangle, unless it lies inside a larger group that has more hits (a face's nose found as a
    /// face of its own).
    static func group(_ hits: [PixelRect], minNeighbors: Int, eps: Double) -> [PixelRect] {
        guard !hits.isEmpty else { return [] }
        var parent = Array(hits.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        func similar(_ a: PixelRect, _ b: PixelRect) -> Bool {
            let delta = eps * Double(min(a.width, b.width) + min(a.height, b.height)) * 0.5
            return Double(abs(a.x - b.x)) <= delta && Double(abs(a.y - b.y)) <= delta
                && Double(abs(a.x + a.width - b.x - b.width)) <= delta
                && Double(abs(a.y + a.height - b.y - b.height)) <= delta
        }
        for i in hits.indices {
            for j in (i + 1)..<hits.count where similar(hits[i], hits[j]) {
                let a = root(i), b = root(j)
                if a != b { parent[b] = a }
            }
        }
        var sums: [Int: (x: Int, y: Int, w: Int, h: Int, n: Int)] = [:]
        for i in hits.indices {
            let r = root(i), h = hits[i]
            let s = sums[r] ?? (0, 0, 0, 0, 0)
            sums[r] = (s.x + h.x, s.y + h.y, s.w + h.width, s.h + h.height, s.n + 1)
        }
        let groups = sums.keys.sorted().map { key -> (rect: PixelRect, count: Int) in
            let s = sums[key]!
            let mean = { (total: Int) in Int((Double(total) / Double(s.n)).rounded()) }
            return (PixelRect(x: mean(s.x), y: mean(s.y), width: mean(s.w), height: mean(s.h)), s.n)
        }
        return groups.indices.compactMap { i -> PixelRect? in
            let (r1, n1) = groups[i]
            guard n1 > minNeighbors else { return nil }
            for j in groups.indices where j != i && groups[j].count > minNeighbors {
                let (r2, n2) = groups[j]
                let dx = Int((Double(r2.width) * eps).rounded()), dy = Int((Double(r2.height) * eps).rounded())
                if r1.x >= r2.x - dx, r1.y >= r2.y - dy, r1.x + r1.width <= r2.x + r2.width + dx,
                   r1.y + r1.height <= r2.y + r2.height + dy, n2 > max(3, n1) || n1 < 3 {
                    return nil
                }
            }
            return r1
        }
    }
}
