import Testing
@testable import Imaging

/// `ClipCanvas`: the subject's box over a whole clip, and frames cropped to it (past the frame's edge transparent).
@Suite("The canvas of a clip cropped to its subject", .timeLimit(.minutes(10)))
struct ClipCanvasTests {
    /// A 40x30 frame, clear but for an opaque w x h block at (x, y).
    static func frame(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Image {
        var image = Image(width: 40, height: 30)
        for v in y..<(y + h) { for u in x..<(x + w) { image[u, v] = RGBA(r: 10, g: 20, b: 30, a: 255) } }
        return image
    }

    @Test("The box is the union of every frame's visible pixels; no pixel at all leaves the whole frame")
    func boxOverTheClip() {
        var canvas = ClipCanvas(frameWidth: 40, frameHeight: 30)
        #expect(canvas.rect(pad: 3, evenSides: false) == PixelRect(x: 0, y: 0, width: 40, height: 30))
        canvas.include(Image(width: 40, height: 30))
        #expect(canvas.box == nil)
        canvas.include(Self.frame(5, 6, 4, 3))
        var faint = Self.frame(20, 10, 1, 1)
        faint[20, 10] = RGBA(r: 0, g: 0, b: 0, a: 1)  // a soft edge's faintest pixel is inside the box (the still's rule)
        canvas.include(faint)
        #expect(canvas.box == PixelRect(x: 5, y: 6, width: 16, height: 5), "\(String(describing: canvas.box))")
        #expect(canvas.rect(pad: 3, evenSides: false) == PixelRect(x: 2, y: 3, width: 22, height: 11))
        #expect(canvas.rect(pad: 3, evenSides: true) == PixelRect(x: 2, y: 3, width: 22, height: 12))
    }

    @Test("A crop past the frame's edge is transparent there and the frame's own pixels elsewhere")
    func cropPastTheEdge() {
        let frame = Self.frame(0, 0, 3, 2)
        let crop = ClipCanvas.crop(frame, to: PixelRect(x: -2, y: -1, width: 6, height: 4))
        #expect(crop.width == 6 && crop.height == 4)
        #expect(crop[0, 0].a == 0 && crop[1, 3].a == 0, "\(crop[0, 0]) \(crop[1, 3])")
        #expect(crop[2, 1] == RGBA(r: 10, g: 20, b: 30, a: 255) && crop[4, 2] == RGBA(r: 10, g: 20, b: 30, a: 255))
        #expect(crop[5, 2].a == 0)
        // The whole frame is the frame itself.
        #expect(ClipCanvas.crop(frame, to: PixelRect(x: 0, y: 0, width: 40, height: 30)) == frame)
    }
}
