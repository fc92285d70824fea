import Imaging

/// An animated sticker's progress as one count that only grows: each frame cut, then each frame encoded (the clip's
/// encode comes after its last frame when it is cropped to the subject, and a messenger's fitting may encode it again),
/// so the job never goes quiet between its last frame and its reply. `total` is the frames expected twice (cut and
/// encoded once), plus the frames of each further fitting attempt as one turns out to be needed.
struct AnimatedProgress: Sendable, Equatable {
    enum Event: Sendable {
        /// `framesIn` frames cut of about `expected`.
        case cut(framesIn: Int, expected: Int)
        /// The clip's last frame is cut: it has `frames` frames.
        case cutEnded(frames: Int)
        /// One more frame encoded.
        case encoded
        /// A fitting attempt ended.
        case attempt(AnimationFitting.Attempt)
        /// The file is made.
        case finished
    }

    private(set) var expected = 1
    private(set) var cut = 0
    private(set) var encoded = 0
    /// Frames of the attempts after the first, announced as each attempt before them failed to fit.
    private(set) var further = 0
    private(set) var isFinished = false
    /// The last `done` reported: a count learnt smaller (the clip had fewer frames than its container said) never
    /// takes the count back.
    private(set) var mark = 0

    var total: Int { isFinished ? max(2 * expected + further, mark) : max(2 * expected + further, mark + 1) }
    /// The total only once the file is made: until then what is left may be less than expected, not nothing.
    var done: Int { isFinished ? total : max(mark, min(cut + encoded, total - 1)) }

    /// Takes `event` and returns the progress to report: done, total and a message (nil when there is nothing new).
    mutating func apply(_ event: Event) -> (done: Int, total: Int, message: String?)? {
        let before = (done, total)
        var message: String?
        switch event {
        case .cut(let framesIn, let expected):
            cut = framesIn
            self.expected = max(self.expected, expected, framesIn)
        case .cutEnded(let frames):
            cut = frames
            expected = max(1, frames)
        case .encoded:
            encoded += 1
        case .attempt(let attempt):
            message = "fitting: \(attempt.summary)"
            if !attempt.fits { further += attempt.frames }
        case .finished:
            isFinished = true
        }
        mark = done
        guard message != nil || (done, total) != before else { return nil }
        return (done, total, message)
    }
}
