/// Where a person is, given their face: the head round the face box and the upper body below it.
///
/// The bottom-up cues treat whatever touches the frame as background, so a portrait cut by the frame
/// loses its body (a dark suit or a jacket against the bottom edge) and keeps only the face. A face
/// is an object-level cue that says the body below it belongs to the subject. The map is 1 on the
/// head (an ellipse round the face box, taking in hair and hats) and on a torso that widens from the
/// neck to the shoulders and runs `bodyLength` face heights down from the top of the face box (to the
/// thighs of a standing adult, the lap of a seated one), and 0 elsewhere. `StickerPreparation.plan`
/// raises both saliency maps to at least a fixed level there, so the colour-model cut (or, with a
/// learned map, the blend's split) still decides the exact outline.
enum PersonPrior {
    /// Torso length in face heights from the top of the face box. Measured on sticker-dev (mean IoU
    /// all 60, OpenCV's faces): 3 → 0.592, 4 → 0.597, 5 → 0.599, 7 → 0.594; 7 runs a seated person's
    /// column down through the grass in front of them.
    static let bodyLength: Float = 5
    /// Half the shoulder width in face widths (adult shoulders are about 2.5 faces wide).
    static let shoulderHalfWidth: Float = 1.3

    /// The prior at `width` × `height` for `faces` given in the pixels of an image `sourceWidth` wide.
    static func map(faces: [PixelRect], sourceWidth: Int, width: Int, height: Int) -> [Float] {
        var map = [Float](repeating: 0, count: width * height)
        let scale = Float(width) / Float(max(1, sourceWidth))
        for face in faces where face.width > 0 && face.height > 0 {
            let size = Float(face.width) * scale
            let centreX = (Float(face.x) + Float(face.width) / 2) * scale
            let top = Float(face.y) * scale
            // Rows the head and torso can touch; everything is measured in face sizes from the face's top centre.
            let firstRow = max(0, Int((top - 0.4 * size).rounded(.down)))
            let lastRow = min(height - 1, Int((top + bodyLength * size).rounded(.up)))
            guard firstRow <= lastRow else { continue }
            for y in firstRow...lastRow {
                let v = (Float(y) + 0.5 - top) / size
                // Head: an ellipse 1.2 faces wide and 1.5 tall round the face box.
                let hy = (v - 0.45) / 0.75
                var halfWidth: Float = hy * hy < 1 ? 0.6 * (1 - hy * hy).squareRoot() : 0
                if v >= 1, v <= bodyLength {
                    // Neck (0.45 faces) widening to the shoulders over 0.6 faces, then straight down.
                    let torso = v < 1.6 ? 0.45 + (shoulderHalfWidth - 0.45) * (v - 1) / 0.6 : shoulderHalfWidth
                    halfWidth = max(halfWidth, torso)
                }
                guard halfWidth > 0 else { continue }
                let x0 = max(0, Int((centreX - halfWidth * size).rounded(.up)))
                let x1 = min(width - 1, Int((centreX + halfWidth * size).rounded(.down)))
                if x0 <= x1 { for x in x0...x1 { map[y * width + x] = 1 } }
            }
        }
        return map
    }
}
