/// What a caller will make of a decoded image, so the JPEG decoder can use libjpeg's DCT scaling
/// (1/2, 1/4, 1/8) and decode only what is needed.
///
/// The decoder picks the largest scale that still leaves at least twice the size the caller needs
/// in both dimensions (libvips' margin: the final Lanczos pass then has enough pixels to filter).
public enum ShrinkOnLoad: Sendable, Hashable, CustomStringConvertible {
    /// The caller needs at least this size (after orientation), whatever the image's aspect.
    case atLeast(width: Int, height: Int)
    /// The caller makes a thumbnail for this box: what it needs is the size of the thumbnail
    /// itself (`contain`), or of the whole image scaled so the box is covered (`cover`), which for a
    /// 6000x4000 photo in a 256 px box is 256x171, not 256x256.
    case thumbnail(width: Int, height: Int, fit: FitMode)
    /// The caller only samples the image's colours (the palette): the decode keeps its longest side
    /// at least this long, with no margin for a resampling filter.
    case colorSample(longestSide: Int)

    /// The size the decoded image must keep at least, for an image of this (display) size.
    public func requiredSize(sourceWidth: Int, sourceHeight: Int) -> (width: Int, height: Int) {
        switch self {
        case .colorSample(let side):
            // Half of the scaled size, since the scale rule below keeps twice what is required.
            let t = ThumbnailGeometry.target(sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                                             width: max(side, 1), height: max(side, 1), fit: .contain)
            return ((t.width + 1) / 2, (t.height + 1) / 2)
        case .atLeast(let w, let h):
            return (max(w, 1), max(h, 1))
        case .thumbnail(let w, let h, .contain):
            let t = ThumbnailGeometry.target(sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                                             width: w, height: h, fit: .contain)
            return (t.width, t.height)
        case .thumbnail(let w, let h, .cover):
            let sw = Double(max(sourceWidth, 1)), sh = Double(max(sourceHeight, 1))
            let scale = max(Double(max(w, 1)) / sw, Double(max(h, 1)) / sh)
            return (Int((sw * scale).rounded(.up)), Int((sh * scale).rounded(.up)))
        }
    }

    /// The libjpeg scale denominator (8, 4, 2 or 1) for an image stored at this size: the largest
    /// whose output (libjpeg rounds scaled sides up) stays at least twice ``requiredSize``.
    public func jpegScaleDenominator(sourceWidth: Int, sourceHeight: Int) -> Int {
        let need = requiredSize(sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        for d in [8, 4, 2] {
            let w = (sourceWidth + d - 1) / d, h = (sourceHeight + d - 1) / d
            if w >= 2 * need.width && h >= 2 * need.height { return d }
        }
        return 1
    }

    /// A short stable key, for caches of decodes made with different targets.
    public var description: String {
        switch self {
        case .atLeast(let w, let h): return "min\(w)x\(h)"
        case .thumbnail(let w, let h, let fit): return "thumb\(w)x\(h)\(fit.rawValue)"
        case .colorSample(let side): return "colors\(side)"
        }
    }
}
