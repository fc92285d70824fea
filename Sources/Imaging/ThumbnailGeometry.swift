import Compute

/// How a thumbnail fills its bounding box.
public enum FitMode: String, Sendable, Codable, CaseIterable {
    /// Scale to fit inside the box, keeping the aspect ratio; one side may be shorter than the box.
    case contain
    /// Scale to fill the box, keeping the aspect ratio, and centre-crop the overflow; the result
    /// is exactly the box size.
    case cover
}

/// Pure arithmetic for thumbnail sizes, shared by the worker (to pick a JPEG shrink-on-load
/// factor before decoding) and by ``Resampler/thumbnail(_:width:height:fit:filter:)``.
public struct ThumbnailGeometry: Sendable {
    /// The output size and, for ``FitMode/cover``, the centred source rectangle to scale.
    ///
    /// - Parameters:
    ///   - sourceWidth, sourceHeight: the image size (non-positive values are treated as 1).
    ///   - width, height: the bounding box (non-positive values are treated as 1).
    ///   - fit: ``FitMode/contain`` or ``FitMode/cover``.
    /// - Returns: `width`/`height` of the final thumbnail. `crop` is nil for `contain` (scale the
    ///   whole image); for `cover` it is the rectangle **in source pixels** whose aspect ratio
    ///   matches the box, centred, to be scaled to exactly `width` x `height` (nil when the whole
    ///   source already has that aspect ratio). Sides are never below 1.
    public static func target(
        sourceWidth: Int, sourceHeight: Int, width: Int, height: Int, fit: FitMode
    ) -> (width: Int, height: Int, crop: (x: Int, y: Int, w: Int, h: Int)?) {
        let sw = max(1, sourceWidth), sh = max(1, sourceHeight)
        let bw = max(1, width), bh = max(1, height)
        // Doubles, not Int products: exact for any realistic size and cannot overflow.
        let sourceAspect = Double(sw) * Double(bh), boxAspect = Double(sh) * Double(bw)
        switch fit {
        case .contain:
            if sourceAspect >= boxAspect {
                return (bw, side(Double(sh) * Double(bw) / Double(sw), atMost: bh), nil)
            } else {
                return (side(Double(sw) * Double(bh) / Double(sh), atMost: bw), bh, nil)
            }
        case .cover:
            if sourceAspect == boxAspect { return (bw, bh, nil) }
            if sourceAspect > boxAspect {
                // Source is wider than the box: keep the full height, crop the sides.
                let cw = side(Double(sh) * Double(bw) / Double(bh), atMost: sw)
                return (bw, bh, ((sw - cw) / 2, 0, cw, sh))
            } else {
                let ch = side(Double(sw) * Double(bh) / Double(bw), atMost: sh)
                return (bw, bh, (0, (sh - ch) / 2, sw, ch))
            }
        }
    }

    /// Rounds a computed side length into `1...limit` without trapping on huge values.
    private static func side(_ value: Double, atMost limit: Int) -> Int {
        let r = value.rounded()
        guard r.isFinite, r < Double(limit) else { return limit }
        return max(1, Int(r))
    }
}

extension Resampler {
    /// A thumbnail of `image` fitted to the `width` x `height` box (see ``ThumbnailGeometry``).
    /// Cover crops are resampled in place, without an intermediate copy.
    ///
    /// - Throws: ``ResampleError`` for an unusable box; `CancellationError` when `loop` is cancelled.
    public static func thumbnail(
        _ image: Image, width: Int, height: Int, fit: FitMode = .contain, filter: ResampleFilter = .lanczos3,
        on loop: some ParallelLoop
    ) throws -> Image {
        guard width > 0, height > 0 else { throw ResampleError.invalidTargetSize(width: width, height: height) }
        let t = ThumbnailGeometry.target(sourceWidth: image.width, sourceHeight: image.height,
                                         width: width, height: height, fit: fit)
        let c = t.crop ?? (0, 0, image.width, image.height)
        return try resize(image, sourceX: c.x, sourceY: c.y, sourceWidth: c.w, sourceHeight: c.h,
                          width: t.width, height: t.height, filter: filter, on: loop)
    }
}
