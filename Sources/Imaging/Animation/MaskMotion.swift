/// How a subject moves between two frames of a clip, so that a key frame's mask can be carried to the frames
/// after it where the subject is, not where it was.
///
/// The motion is one translation per frame pair: the shift that best lays the pixels under the mask in one frame
/// over the next (least mean absolute luma difference), searched on half-size frames and refined at full size.
/// Between key frames half a second apart a person or a pet moves mostly as a whole; a blend of two key
/// masks that were not moved with it would cross-fade between two places (a ghost, then a jump), which reads as
/// flicker.
public enum MaskMotion {
    /// A translation in whole pixels.
    public struct Shift: Sendable, Equatable {
        public var dx: Int
        public var dy: Int
        public static let zero = Shift(dx: 0, dy: 0)

        public init(dx: Int, dy: Int) { (self.dx, self.dy) = (dx, dy) }

        public static func + (a: Shift, b: Shift) -> Shift { Shift(dx: a.dx + b.dx, dy: a.dy + b.dy) }
        public static func - (a: Shift, b: Shift) -> Shift { Shift(dx: a.dx - b.dx, dy: a.dy - b.dy) }

        /// The part of a `width` x `height` frame that a mask moved by this shift carries from inside its own frame
        /// (empty when none): elsewhere ``MaskMotion/translated(_:by:)`` can only say background.
        public func seenPart(width: Int, height: Int) -> PixelRect {
            PixelRect(x: dx, y: dy, width: width, height: height).clipped(toWidth: width, height: height)
                ?? PixelRect(x: 0, y: 0, width: 0, height: 0)
        }
    }

    /// A frame's luma at full size and at half size (means of 2x2 blocks), what ``shift(from:mask:to:radius:)``
    /// compares.
    public struct Luma: Sendable, Equatable {
        public let width: Int, height: Int
        let full: [UInt8]
        let halfWidth: Int, halfHeight: Int
        let half: [UInt8]

        public init(_ image: Image) {
            self = image.pixels.withUnsafeBufferPointer { Luma(pixels: $0, channels: 4, width: image.width, height: image.height) }
        }

        /// The luma of `width` x `height` pixels of `channels` interleaved bytes each, red, green and blue first
        /// (RGBA, or RGB as a frame held without its alpha).
        public init(pixels p: UnsafeBufferPointer<UInt8>, channels: Int, width w: Int, height fh: Int) {
            precondition(channels >= 3 && p.count >= w * fh * channels)
            (width, height) = (w, fh)
            var full = [UInt8](repeating: 0, count: w * fh)
            full.withUnsafeMutableBufferPointer { l in
                for i in 0..<l.count {
                    let r = Int(p[i * channels]) * 77, g = Int(p[i * channels + 1]) * 150, b = Int(p[i * channels + 2]) * 29
                    l[i] = UInt8((r + g + b + 128) >> 8)
                }
            }
            let (hw, hh) = (max(1, w / 2), max(1, fh / 2))
            (halfWidth, halfHeight) = (hw, hh)
            var half = [UInt8](repeating: 0, count: hw * hh)
            full.withUnsafeBufferPointer { f in
                half.withUnsafeMutableBufferPointer { h in
                    for y in 0..<hh {
                        let y0 = min(2 * y, fh - 1), y1 = min(2 * y + 1, fh - 1)
                        for x in 0..<hw {
                            let x0 = min(2 * x, w - 1), x1 = min(2 * x + 1, w - 1)
                            let top = Int(f[y0 * w + x0]) + Int(f[y0 * w + x1])
                            let bottom = Int(f[y1 * w + x0]) + Int(f[y1 * w + x1])
                            h[y * hw + x] = UInt8((top + bottom + 2) >> 2)
                        }
                    }
                }
            }
            self.full = full
            self.half = half
        }
    }

    /// Samples of the template: at most this many pixels under the mask are compared (an even grid over them).
    static let maxSamples = 6000

    /// The shift that carries the subject (the pixels of `from` under `mask`, alpha at least 128) onto `to`,
    /// within `radius` pixels each way; zero when the mask is empty or no shift compares better than standing
    /// still (a uniform subject, or a scene that does not move).
    public static func shift(from: Luma, mask: Mask, to: Luma, radius: Int = 12) -> Shift {
        precondition(from.width == to.width && from.height == to.height && mask.width == from.width
                     && mask.height == from.height, "frames and mask of different sizes")
        // The template at half size: the half-size pixels whose full-size block's top-left is under the mask.
        let inside = mask.count()
        guard inside > 0 else { return .zero }
        let step = max(1, Int((Double(inside / 4) / Double(maxSamples)).squareRoot().rounded(.up)))
        var halfPoints: [(Int, Int)] = []
        for y in stride(from: 0, to: from.halfHeight, by: step) {
            for x in stride(from: 0, to: from.halfWidth, by: step)
            where mask.values[min(2 * y, mask.height - 1) * mask.width + min(2 * x, mask.width - 1)] >= 128 {
                halfPoints.append((x, y))
            }
        }
        let halfRadius = max(1, radius / 2)
        var coarse = Shift.zero
        var coarseCost = Double.infinity
        for dy in -halfRadius...halfRadius {
            for dx in -halfRadius...halfRadius {
                let c = cost(halfPoints, from.half, to.half, width: from.halfWidth, height: from.halfHeight,
                             Shift(dx: dx, dy: dy)) * (1 + 0.01 * Double(abs(dx) + abs(dy)))
                if c < coarseCost { (coarse, coarseCost) = (Shift(dx: dx, dy: dy), c) }
            }
        }
        // Refined at full size, a pixel each way round the doubled half-size shift and round standing still (a
        // subject moving a pixel a frame is half a pixel at half size, which the coarse search may not tell).
        let fullStep = max(1, Int((Double(inside) / Double(maxSamples)).squareRoot().rounded(.up)))
        var fullPoints: [(Int, Int)] = []
        for y in stride(from: 0, to: from.height, by: fullStep) {
            for x in stride(from: 0, to: from.width, by: fullStep) where mask.values[y * mask.width + x] >= 128 {
                fullPoints.append((x, y))
            }
        }
        let still = cost(fullPoints, from.full, to.full, width: from.width, height: from.height, .zero)
        var best = Shift.zero
        var bestCost = still
        for centre in [Shift(dx: coarse.dx * 2, dy: coarse.dy * 2), .zero] {
            for dy in -1...1 {
                for dx in -1...1 {
                    let s = centre + Shift(dx: dx, dy: dy)
                    guard s != .zero else { continue }
                    let c = cost(fullPoints, from.full, to.full, width: from.width, height: from.height, s)
                        * (1 + 0.005 * Double(abs(s.dx) + abs(s.dy)))
                    if c < bestCost { (best, bestCost) = (s, c) }
                }
            }
        }
        // Moving must explain the frame clearly better than standing still.
        return bestCost < still * 0.9 ? best : .zero
    }

    /// Mean absolute difference between `a` at the points and `b` at the points moved by `s`, over the moved
    /// points inside `b`; infinity when fewer than half of them are.
    private static func cost(_ points: [(Int, Int)], _ a: [UInt8], _ b: [UInt8], width: Int, height: Int,
                             _ s: Shift) -> Double {
        var sum = 0, count = 0
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                for (x, y) in points {
                    let u = x + s.dx, v = y + s.dy
                    guard u >= 0, v >= 0, u < width, v < height else { continue }
                    sum += abs(Int(a[y * width + x]) - Int(b[v * width + u]))
                    count += 1
                }
            }
        }
        return count * 2 < points.count || count == 0 ? .infinity : Double(sum) / Double(count)
    }

    /// `mask` moved by `s` (what moves in from outside is background).
    public static func translated(_ mask: Mask, by s: Shift) -> Mask {
        guard s != .zero else { return mask }
        let (w, h) = (mask.width, mask.height)
        var out = [UInt8](repeating: 0, count: w * h)
        let seen = s.seenPart(width: w, height: h)
        guard seen.width > 0 else { return Mask(width: w, height: h, values: out) }
        mask.values.withUnsafeBufferPointer { m in
            out.withUnsafeMutableBufferPointer { o in
                for y in seen.y..<(seen.y + seen.height) {
                    let from = (y - s.dy) * w + (seen.x - s.dx)
                    (o.baseAddress! + y * w + seen.x).update(from: m.baseAddress! + from, count: seen.width)
                }
            }
        }
        return Mask(width: w, height: h, values: out)
    }
}
