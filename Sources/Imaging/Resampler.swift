import Compute

/// High-quality separable image resampling (Lanczos-3 by default).
///
/// The two 1-D passes run on premultiplied `Float` RGBA so that transparent pixels, whose colour
/// channels are meaningless, do not bleed dark fringes into opaque neighbours. Weights are
/// precomputed once per output column and per output row; the pixel loops allocate nothing.
public enum Resampler {
    /// Largest accepted output side.
    public static let maximumDimension = 32_768
    /// Largest accepted output pixel count (the decoder's default limit).
    public static let maximumPixels = 100_000_000
    /// Largest accepted source side: weight tables grow with it when downscaling.
    public static let maximumSourceDimension = 1 << 20
    /// Largest float intermediate (output width x source rows used), 16 bytes each: 2 GiB.
    static let maximumIntermediate = 1 << 27

    /// Rows between two cancellation checks.
    static let cancellationBand = 32

    /// Separable resample to exactly `width` x `height`; alpha-correct (premultiply while
    /// filtering, unpremultiply after).
    ///
    /// - Throws: ``ResampleError/invalidTargetSize(width:height:)`` for a non-positive or huge
    ///   size (see ``maximumDimension``, ``maximumPixels``; an extreme aspect change whose float
    ///   intermediate would exceed 2 GiB is refused too), ``ResampleError/sourceTooLarge(width:height:)``;
    ///   `CancellationError` when `loop` is cancelled mid-way (``ParallelLoop/isCancelled``, checked per band of rows;
    ///   ``InTurnLoop``, the loop for code off the compute pool, reads the calling task's cancellation).
    public static func resize(
        _ image: Image, width: Int, height: Int, filter: ResampleFilter = .lanczos3, on loop: some ParallelLoop
    ) throws -> Image {
        try resize(image, sourceX: 0, sourceY: 0, sourceWidth: image.width, sourceHeight: image.height,
                   width: width, height: height, filter: filter, on: loop)
    }

    /// Resamples the source rectangle (`sourceX`, `sourceY`, `sourceWidth`, `sourceHeight`) of
    /// `image` to exactly `width` x `height`, without copying the rectangle first.
    ///
    /// Kernel taps near the rectangle's edges may read pixels just outside it (but inside the
    /// image), exactly as if the whole image had been scaled and then cropped.
    ///
    /// - Throws: ``ResampleError`` for invalid sizes or a rectangle outside the image;
    ///   `CancellationError` when `loop` is cancelled.
    public static func resize(
        _ image: Image, sourceX: Int, sourceY: Int, sourceWidth: Int, sourceHeight: Int,
        width: Int, height: Int, filter: ResampleFilter = .lanczos3, on loop: some ParallelLoop
    ) throws -> Image {
        guard width > 0, height > 0, width <= maximumDimension, height <= maximumDimension,
              width * height <= maximumPixels
        else {
            throw ResampleError.invalidTargetSize(width: width, height: height)
        }
        guard image.width <= maximumSourceDimension, image.height <= maximumSourceDimension else {
            throw ResampleError.sourceTooLarge(width: image.width, height: image.height)
        }
        guard sourceWidth > 0, sourceHeight > 0, sourceX >= 0, sourceY >= 0,
              sourceX <= image.width - sourceWidth, sourceY <= image.height - sourceHeight
        else {
            throw ResampleError.invalidSourceRect(x: sourceX, y: sourceY, width: sourceWidth, height: sourceHeight)
        }
        if width == image.width, height == image.height, sourceWidth == image.width, sourceHeight == image.height {
            return image
        }

        let xWeights = FilterWeights(sourceStart: sourceX, sourceLength: sourceWidth, sourceLimit: image.width,
                                     outputLength: width, filter: filter)
        let yWeights = FilterWeights(sourceStart: sourceY, sourceLength: sourceHeight, sourceLimit: image.height,
                                     outputLength: height, filter: filter)

        // Only the source rows and columns some output tap touches are converted and filtered.
        let rowMin = yWeights.minimumIndex, rowMax = yWeights.maximumIndex
        let colMin = xWeights.minimumIndex, colMax = xWeights.maximumIndex
        let rowCount = rowMax - rowMin
        let colCount = colMax - colMin
        guard width * rowCount <= maximumIntermediate else {
            throw ResampleError.invalidTargetSize(width: width, height: height)
        }

        var intermediate = [SIMD4<Float>](repeating: .zero, count: width * rowCount)
        var sourceRow = [SIMD4<Float>](repeating: .zero, count: colCount)

        // Pass 1: horizontal, source rows -> intermediate (width x rowCount), premultiplied.
        try image.pixels.withUnsafeBufferPointer { src in
            try intermediate.withUnsafeMutableBufferPointer { inter in
                try sourceRow.withUnsafeMutableBufferPointer { row in
                    try xWeights.withBuffers { starts, counts, weights, stride in
                        let rowBytes = image.width * 4
                        for y in rowMin..<rowMax {
                            if (y - rowMin) % cancellationBand == 0, loop.isCancelled { throw CancellationError() }
                            let line = UnsafeRawPointer(src.baseAddress! + y * rowBytes + colMin * 4)
                            for i in 0..<colCount {
                                row[i] = premultiplied(line.loadUnaligned(fromByteOffset: i &* 4, as: SIMD4<UInt8>.self))
                            }
                            let outBase = (y - rowMin) * width
                            let rowBase = row.baseAddress!, weightBase = weights.baseAddress!
                            for x in 0..<width {
                                inter[outBase + x] = dot(rowBase + (Int(starts[x]) - colMin),
                                                         weightBase + x * stride, count: Int(counts[x]))
                            }
                        }
                    }
                }
            }
        }

        // Pass 2: vertical, intermediate -> output, then unpremultiply and clamp.
        var output = [UInt8](repeating: 0, count: width * height * 4)
        var accumulator = [SIMD4<Float>](repeating: .zero, count: width)
        try intermediate.withUnsafeBufferPointer { inter in
            try output.withUnsafeMutableBufferPointer { out in
                try accumulator.withUnsafeMutableBufferPointer { acc in
                    try yWeights.withBuffers { starts, counts, weights, stride in
                        for y in 0..<height {
                            if y % cancellationBand == 0, loop.isCancelled { throw CancellationError() }
                            for x in 0..<width { acc[x] = .zero }
                            let start = Int(starts[y]) - rowMin
                            let n = Int(counts[y])
                            let wy = weights.baseAddress! + y * stride
                            let rows = inter.baseAddress!
                            // Four source rows per sweep: a quarter of the accumulator traffic.
                            var t = 0
                            while t + 4 <= n {
                                let r0 = rows + (start + t) * width, r1 = r0 + width, r2 = r1 + width, r3 = r2 + width
                                let w0 = wy[t], w1 = wy[t + 1], w2 = wy[t + 2], w3 = wy[t + 3]
                                for x in 0..<width {
                                    acc[x] += (r0[x] * w0 + r1[x] * w1) + (r2[x] * w2 + r3[x] * w3)
                                }
                                t += 4
                            }
                            while t < n {
                                let r0 = rows + (start + t) * width, w0 = wy[t]
                                for x in 0..<width { acc[x] += r0[x] * w0 }
                                t += 1
                            }
                            var o = y * width * 4
                            for x in 0..<width {
                                storeUnpremultiplied(acc[x], into: out, at: o)
                                o += 4
                            }
                        }
                    }
                }
            }
        }
        return Image(width: width, height: height, pixels: output)
    }

    /// One RGBA8 pixel as premultiplied floats in 0...255.
    @inline(__always)
    static func premultiplied(_ v: SIMD4<UInt8>) -> SIMD4<Float> {
        let f = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: v))
        let k = f.w * (1 / 255)
        return f * SIMD4(k, k, k, 1)
    }

    /// Sum of `count` pixels times their weights. Four independent accumulators so the adds do
    /// not wait on each other (a single accumulator makes the loop latency-bound).
    @inline(__always)
    static func dot(_ p: UnsafePointer<SIMD4<Float>>, _ w: UnsafePointer<Float>, count n: Int) -> SIMD4<Float> {
        var a0 = SIMD4<Float>.zero, a1 = SIMD4<Float>.zero, a2 = SIMD4<Float>.zero, a3 = SIMD4<Float>.zero
        var t = 0
        while t &+ 4 <= n {
            a0 += p[t] * w[t]
            a1 += p[t &+ 1] * w[t &+ 1]
            a2 += p[t &+ 2] * w[t &+ 2]
            a3 += p[t &+ 3] * w[t &+ 3]
            t &+= 4
        }
        while t < n {
            a0 += p[t] * w[t]
            t &+= 1
        }
        return (a0 + a1) + (a2 + a3)
    }

    /// Converts one premultiplied float pixel back to straight-alpha RGBA8, clamping the
    /// overshoot that negative Lanczos lobes produce.
    @inline(__always)
    static func storeUnpremultiplied(_ p: SIMD4<Float>, into out: UnsafeMutableBufferPointer<UInt8>, at o: Int) {
        let a = min(max(p.w, 0), 255)
        let alpha = (a + 0.5).rounded(.down)
        if alpha < 1 {
            out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 0
            return
        }
        // Colour is a premultiplied value below `a`; dividing by the unrounded alpha keeps
        // opaque pixels bit-exact.
        let k = 255 / a
        var c = p * k
        c = c.clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255))
        c += SIMD4(repeating: 0.5)
        out[o] = UInt8(c.x)
        out[o + 1] = UInt8(c.y)
        out[o + 2] = UInt8(c.z)
        out[o + 3] = UInt8(alpha)
    }
}

/// Precomputed normalised kernel weights for one axis: for every output index, the first source
/// index, the number of taps and the weights (at a fixed stride).
struct FilterWeights {
    private(set) var starts: [Int32]
    private(set) var counts: [Int32]
    private(set) var weights: [Float]
    let stride: Int
    /// Smallest source index any output reads.
    let minimumIndex: Int
    /// One past the largest source index any output reads.
    let maximumIndex: Int

    init(sourceStart: Int, sourceLength: Int, sourceLimit: Int, outputLength: Int, filter: ResampleFilter) {
        let scale = Double(outputLength) / Double(sourceLength)
        // Downscaling stretches the kernel so it also low-passes to the new Nyquist frequency.
        let filterScale = max(1, 1 / scale)
        let support = filter.support * filterScale
        let stride = Int((support * 2).rounded(.up)) + 2
        var starts = [Int32](repeating: 0, count: outputLength)
        var counts = [Int32](repeating: 0, count: outputLength)
        var weights = [Float](repeating: 0, count: outputLength * stride)
        var scratch = [Double](repeating: 0, count: stride)
        var lo = Int.max, hi = Int.min
        for i in 0..<outputLength {
            let center = Double(sourceStart) + (Double(i) + 0.5) / scale
            var first = max(0, Int((center - support + 0.5).rounded(.down)))
            var last = min(sourceLimit, Int((center + support + 0.5).rounded(.down)))
            last = min(last, first + stride)
            var sum = 0.0
            var n = 0
            if last > first {
                for j in first..<last {
                    let w = filter.weight((Double(j) + 0.5 - center) / filterScale)
                    scratch[n] = w
                    sum += w
                    n += 1
                }
            }
            if n == 0 || abs(sum) < 1e-12 {
                // Degenerate window (cannot happen for the built-in kernels, kept as a guard):
                // fall back to the nearest source pixel.
                first = min(max(0, Int(center)), sourceLimit - 1)
                scratch[0] = 1; sum = 1; n = 1
            }
            // Trim zero-weight taps at both ends (box and tent kernels produce them).
            var a = 0, b = n
            while a < b - 1, scratch[a] == 0 { a += 1 }
            while b - 1 > a, scratch[b - 1] == 0 { b -= 1 }
            starts[i] = Int32(first + a)
            counts[i] = Int32(b - a)
            for t in a..<b { weights[i * stride + t - a] = Float(scratch[t] / sum) }
            lo = min(lo, first + a)
            hi = max(hi, first + b)
        }
        self.starts = starts
        self.counts = counts
        self.weights = weights
        self.stride = stride
        self.minimumIndex = lo
        self.maximumIndex = hi
    }

    func withBuffers<R>(
        _ body: (UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Float>, Int) throws -> R
    ) rethrows -> R {
        try starts.withUnsafeBufferPointer { s in
            try counts.withUnsafeBufferPointer { c in
                try weights.withUnsafeBufferPointer { w in try body(s, c, w, stride) }
            }
        }
    }
}
