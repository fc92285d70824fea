import Testing
@testable import Imaging

/// `SubjectPrompt.carried(along:onto:)` and `scaled(fromWidth:height:toWidth:height:)`: how a subject chosen on a clip's
/// first frame is said again on each later key frame, and in the cut's pixels.
@Suite("A subject prompt carried between key frames", .timeLimit(.minutes(10)))
struct KeyFramePromptTests {
    /// A 20x10 mask with a filled rectangle [x0, x1) x [y0, y1).
    func block(_ x0: Int, _ x1: Int, _ y0: Int = 0, _ y1: Int = 10) -> Mask {
        Mask(width: 20, height: 10, values: (0..<200).map { i in
            (x0..<x1).contains(i % 20) && (y0..<y1).contains(i / 20) ? 255 : 0
        })
    }

    /// The same motion (dx, dy) everywhere on a 20x10 frame.
    func shift(_ dx: Int, _ dy: Int) -> FlowField {
        FlowField(width: 20, height: 10, step: 2, u: Array(repeating: Float(dx), count: 50),
                  v: Array(repeating: Float(dy), count: 50))
    }

    @Test("A point moves with the subject, and onto it where the move alone would miss it")
    func points() {
        let moved = SubjectPrompt.point(4, 5).carried(along: shift(3, 1), onto: block(5, 10))
        #expect(moved == .point(7, 6), "\(moved)")
        // The subject did not move as one piece: the moved point (12, 5) is off it; the nearest pixel on it is (9, 5).
        let snapped = SubjectPrompt.point(10, 5).carried(along: shift(2, 0), onto: block(5, 10))
        #expect(snapped == .point(9, 5), "\(snapped)")
        // Off the frame: clamped to its edge, then onto the subject.
        let edge = SubjectPrompt.point(18, 2).carried(along: shift(6, -4), onto: block(15, 20, 3, 6))
        #expect(edge == .point(19, 3), "\(edge)")
    }

    @Test("Points to exclude stay where they were, less those the subject now covers")
    func excluded() {
        let prompt = SubjectPrompt.points(include: [PixelPoint(x: 6, y: 5)],
                                          exclude: [PixelPoint(x: 1, y: 1), PixelPoint(x: 12, y: 5)])
        let moved = prompt.carried(along: shift(4, 0), onto: block(9, 15))
        #expect(moved == .points(include: [PixelPoint(x: 10, y: 5)], exclude: [PixelPoint(x: 1, y: 1)]), "\(moved)")
    }

    @Test("A box moves with the subject, clipped to the frame; all stays all; an empty mask moves the point alone")
    func boxesAndAll() {
        let box = SubjectPrompt.box(PixelRect(x: 2, y: 2, width: 6, height: 4))
        #expect(box.carried(along: shift(15, -1), onto: block(0, 0))
                == .box(PixelRect(x: 17, y: 1, width: 3, height: 4)))
        #expect(box.carried(along: shift(30, 0), onto: block(0, 0)) == box)
        #expect(SubjectPrompt.all.carried(along: shift(1, 1), onto: block(5, 10)) == .all)
        #expect(SubjectPrompt.point(4, 5).carried(along: shift(2, 0), onto: block(0, 0)) == .point(6, 5))
    }

    @Test("Scaled to the cut's size: a point keeps the pixel its centre falls in, a box every pixel it touched")
    func scaled() {
        #expect(SubjectPrompt.point(639, 0).scaled(fromWidth: 640, height: 480, toWidth: 320, height: 240) == .point(319, 0))
        #expect(SubjectPrompt.point(3, 3).scaled(fromWidth: 100, height: 100, toWidth: 200, height: 200) == .point(7, 7))
        let box = SubjectPrompt.box(PixelRect(x: 1, y: 1, width: 1, height: 3))
            .scaled(fromWidth: 100, height: 100, toWidth: 10, height: 10)
        #expect(box == .box(PixelRect(x: 0, y: 0, width: 1, height: 1)), "\(box)")
        #expect(SubjectPrompt.all.scaled(fromWidth: 9, height: 9, toWidth: 3, height: 3) == .all)
    }
}
