import Compute
import Imaging

/// How a cut frame of an animated sticker (the whole frame at the cut's size, its subject's alpha applied) becomes a
/// frame of the file: cropped to the clip's canvas (``ClipCanvas``: the subject's box over the whole clip, or the
/// whole frame), outlined, and laid out at the messenger's size. Every frame of a clip is placed in the same
/// rectangle, so the subject moves on the sticker as it moved in the clip.
struct FramePlacement: Sendable {
    var outline: OutlineSpec?
    var target: MessengerTarget?
    /// Whether the canvas is the subject's box over the clip (`canvas: "subject"`) rather than the whole frame.
    var cropsToSubject: Bool
    var format: ImageFormat

    /// Room round the subject's box for the outline (the still's rule: the outline's width and two pixels).
    var pad: Int { (outline?.width ?? 0) > 0 ? outline!.width + 2 : 0 }

    /// The rectangle of the cut frames every file frame shows, once `canvas` has seen every frame.
    func rect(_ canvas: ClipCanvas) -> PixelRect {
        guard cropsToSubject else {
            return PixelRect(x: 0, y: 0, width: canvas.frameWidth, height: canvas.frameHeight)
        }
        return canvas.rect(pad: pad, evenSides: target == nil && format == .webm)
    }

    /// The file's canvas for frames cropped to `rect`.
    func fileCanvas(_ rect: PixelRect) -> (width: Int, height: Int) {
        target.map { $0.animatedCanvas(width: rect.width, height: rect.height) } ?? (rect.width, rect.height)
    }

    /// `frame` cropped to `rect`, outlined and laid out, on `loop`.
    func place(_ frame: Image, in rect: PixelRect, on loop: some ParallelLoop) throws -> Image {
        var placed = ClipCanvas.crop(frame, to: rect)
        if let outline, outline.width > 0 {
            try StickerOutline.apply(to: &placed, width: outline.width, color: outline.color, on: loop)
        }
        if let target { placed = try target.layoutFrame(placed, on: loop) }
        return placed
    }
}
