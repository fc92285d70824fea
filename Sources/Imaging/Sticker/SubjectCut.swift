/// A subject cut from a photo, before it is made a sticker: its full-resolution mask and what the mask says of it.
///
/// What a cut ends in when only the mask is wanted (an animated sticker's key frame, whose frames are cut out as they
/// come): ``StickerExtractor/makeSticker(_:cut:options:)`` makes the cropped cut-out from it, a copy of the subject's
/// pixels that would otherwise be made only to be dropped.
public struct SubjectCut: Sendable {
    /// Full-resolution subject mask, 255 = subject.
    public var mask: Mask
    /// The subject's extent in the photo's pixels (mask above zero); for an empty mask, the part of the photo that was
    /// cut (the whole photo, or the box asked for).
    public var boundingBox: PixelRect
    /// Share of the photo's pixels the subject covers (mask >= 128), 0...1.
    public var coverage: Double
    /// How much the segmentation can be trusted, 0...1 (see ``Sticker/confidence``).
    public var confidence: Double
    /// Whether the photo was a cut-out already (its own alpha is the mask): its soft edge is no mix with a background,
    /// so its colours are kept.
    var isOwnCutOut = false

    /// The cut of `mask`, its box and coverage measured. `emptyBox` is the box of an empty mask (the part of the photo
    /// that was cut), the whole photo without one.
    init(mask: Mask, confidence: Double, emptyBox: PixelRect? = nil) {
        let w = mask.width, h = mask.height
        var minX = w, minY = h, maxX = -1, maxY = -1
        var covered = 0
        mask.values.withUnsafeBufferPointer { m in
            for y in 0..<h {
                for x in 0..<w {
                    let v = m[y * w + x]
                    if v >= 128 { covered += 1 }
                    if v > 0 {
                        minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                    }
                }
            }
        }
        if maxX < 0 {
            let b = emptyBox ?? PixelRect(x: 0, y: 0, width: w, height: h)
            minX = b.x; minY = b.y; maxX = b.x + b.width - 1; maxY = b.y + b.height - 1
        }
        self.mask = mask
        boundingBox = PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
        coverage = Double(covered) / Double(w * h)
        self.confidence = confidence
    }
}
