import Imaging
import Testing
@testable import PhotoWorker

/// `AnimatedProgress`: frames cut, then encoded, as one count that never goes back or stops short of the end.
@Suite("Animated sticker progress", .timeLimit(.minutes(10)))
struct AnimatedProgressTests {
    static func attempt(frames: Int, fits: Bool) -> AnimationFitting.Attempt {
        AnimationFitting.Attempt(quality: 75, fps: 30, length: 3, frames: frames, bytes: fits ? 100 : 300_000, fits: fits)
    }

    @Test("Cut, encoded, a fitting attempt that does not fit and one that does: done only grows and ends at the total")
    func growsToTheEnd() {
        var progress = AnimatedProgress()
        var reports: [(done: Int, total: Int, message: String?)] = []
        func apply(_ event: AnimatedProgress.Event) { if let r = progress.apply(event) { reports.append(r) } }
        for k in 1...4 { apply(.cut(framesIn: k, expected: 3)) }  // a fourth frame the estimate did not know of
        apply(.cutEnded(frames: 4))
        for _ in 0..<4 { apply(.encoded) }
        apply(.attempt(Self.attempt(frames: 4, fits: false)))  // 4 more frames to encode
        for _ in 0..<2 { apply(.encoded) }
        apply(.attempt(Self.attempt(frames: 2, fits: true)))  // fewer frames than announced: fits
        apply(.finished)
        let done = reports.map(\.done), totals = reports.map(\.total)
        #expect(done == done.sorted() && zip(done, totals).allSatisfy { $0 < $1 || $0 == totals.last! },
                "\(reports)")
        #expect(reports.last.map { $0.done == $0.total && $0.total == 12 } == true, "\(reports)")
        // Before the end, never all done: the second attempt's frames were fewer than announced.
        #expect(reports.dropLast().allSatisfy { $0.done < $0.total }, "\(reports)")
        #expect(reports.compactMap(\.message) == ["fitting: " + Self.attempt(frames: 4, fits: false).summary,
                                                  "fitting: " + Self.attempt(frames: 2, fits: true).summary])
    }

    @Test("Frames encoded as they are cut, and fewer than the container said: the count never goes back")
    func fewerFramesThanExpected() {
        var progress = AnimatedProgress()
        var reports: [(done: Int, total: Int, message: String?)] = []
        func apply(_ event: AnimatedProgress.Event) { if let r = progress.apply(event) { reports.append(r) } }
        // The whole frame as the canvas: each frame encoded as it is cut; 3 expected, 2 came.
        for k in 1...2 {
            apply(.cut(framesIn: k, expected: 3))
            apply(.encoded)
        }
        apply(.cutEnded(frames: 2))
        apply(.finished)
        let done = reports.map(\.done)
        #expect(done == done.sorted() && reports.allSatisfy { $0.done <= $0.total }, "\(reports)")
        #expect(reports.last.map { $0.done == $0.total } == true && reports.dropLast().allSatisfy { $0.done < $0.total },
                "\(reports)")
    }

    @Test("Nothing new is not reported again")
    func nothingNew() {
        var progress = AnimatedProgress()
        #expect(progress.apply(.cut(framesIn: 1, expected: 5)) != nil)
        #expect(progress.apply(.cut(framesIn: 1, expected: 5)) == nil)
    }
}
