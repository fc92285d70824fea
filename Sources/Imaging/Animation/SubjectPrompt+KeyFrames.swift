extension SubjectPrompt {
    /// The prompt for a clip's next key frame, when this one chose the subject on the key frame before: so every key
    /// frame is cut of the subject a person chose on the first, not of whatever the network finds most salient.
    ///
    /// - Parameters:
    ///   - shift: the subject's motion from the key frame before to this one (``MaskMotion``).
    ///   - carried: the key frame before's mask moved by `shift`, at this frame's size: where the subject now is.
    /// - Returns: for points, each point moved by `shift`, or, where that lands off the carried mask, the carried
    ///   mask's pixel nearest to it (a subject that turns or bends does not move as one piece); the points to exclude
    ///   where they were (what they mark need not move with the subject), less those the carried mask now covers.
    ///   A box moved by `shift` and clipped to the frame (as it was, if nothing of it is left on the frame).
    ///   `all` as it is. An empty carried mask moves the points and box alone.
    public func carried(by shift: MaskMotion.Shift, onto carried: Mask) -> SubjectPrompt {
        let w = carried.width, h = carried.height
        func inside(_ p: PixelPoint) -> Bool { carried.values[p.y * w + p.x] >= 128 }
        switch self {
        case .all:
            return .all
        case .points(let include, let exclude):
            let moved = include.map { p -> PixelPoint in
                let q = PixelPoint(x: min(w - 1, max(0, p.x + shift.dx)), y: min(h - 1, max(0, p.y + shift.dy)))
                guard !inside(q) else { return q }
                // The carried mask is searched only for a point the move alone left off it.
                let onSubject = carried.values.indices.lazy.filter { carried.values[$0] >= 128 }
                guard let nearest = onSubject.min(by: { a, b in
                    let (ax, ay, bx, by) = (a % w - q.x, a / w - q.y, b % w - q.x, b / w - q.y)
                    return ax * ax + ay * ay < bx * bx + by * by
                }) else { return q }
                return PixelPoint(x: nearest % w, y: nearest / w)
            }
            let kept = exclude.filter { $0.x < w && $0.y < h && !inside($0) }
            return .points(include: moved, exclude: kept)
        case .box(let b):
            let moved = PixelRect(x: b.x + shift.dx, y: b.y + shift.dy, width: b.width, height: b.height)
            return .box(moved.clipped(toWidth: w, height: h) ?? b)
        }
    }
}
