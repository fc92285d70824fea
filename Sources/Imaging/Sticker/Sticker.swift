/// An axis-aligned rectangle in pixel coordinates.
public struct PixelRect: Sendable, Equatable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// The part of a `width` x `height` photo round this rectangle: its part on the photo grown by a tenth of that
    /// part's size on each side and clamped to the photo (a subject's box with some of what surrounds it, as a
    /// subject map is shown it on its own). Nil when no part of it lies on the photo.
    public func grownByATenth(within width: Int, height: Int) -> PixelRect? {
        guard let b = clipped(toWidth: width, height: height) else { return nil }
        let gx = b.width / 10, gy = b.height / 10
        let x0 = max(0, b.x - gx), y0 = max(0, b.y - gy)
        let x1 = min(width, b.x + b.width + gx), y1 = min(height, b.y + b.height + gy)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The smallest rectangle holding both.
    public func union(_ other: PixelRect) -> PixelRect {
        let x0 = min(x, other.x), y0 = min(y, other.y)
        let x1 = max(x + width, other.x + other.width), y1 = max(y + height, other.y + other.height)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Whether `p` lies inside.
    public func contains(_ p: PixelPoint) -> Bool { p.x >= x && p.y >= y && p.x < x + width && p.y < y + height }

    /// Its part on a `width` x `height` photo; nil when no part of it lies on the photo.
    public func clipped(toWidth width: Int, height: Int) -> PixelRect? {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(width, x + self.width), y1 = min(height, y + self.height)
        return x1 > x0 && y1 > y0 ? PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }
}

/// A subject cut out of a photo, ready to be placed on a sticker sheet.
public struct Sticker: Sendable {
    /// RGBA cut-out, straight alpha, cropped to `boundingBox` plus a transparent margin wide enough
    /// for the outline and the feathered edge. Pixels of the margin that fall outside the source are
    /// transparent (or outline-coloured).
    public var image: Image
    /// The subject's extent in source coordinates (pixels with mask coverage above zero), without margin.
    public var boundingBox: PixelRect
    /// Where `image`'s top-left corner lies in source coordinates (may be negative: the margin can
    /// extend past the source's edges).
    public var origin: (x: Int, y: Int)
    /// Share of the source image's pixels the subject covers (mask ≥ 128), 0...1.
    public var coverage: Double
    /// How much the segmentation can be trusted, 0...1. 0 means a fallback was used (no distinct
    /// subject found); see `StickerExtractor` for how it is computed.
    public var confidence: Double
    /// Full-resolution subject mask, 255 = subject.
    public var mask: Mask

    public init(image: Image, boundingBox: PixelRect, origin: (x: Int, y: Int), coverage: Double, confidence: Double, mask: Mask) {
        self.image = image
        self.boundingBox = boundingBox
        self.origin = origin
        self.coverage = coverage
        self.confidence = confidence
        self.mask = mask
    }
}
