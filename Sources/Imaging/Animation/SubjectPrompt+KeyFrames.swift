extension SubjectPrompt {
    /// The prompt for a clip's next key frame, when this one chose the subject on the key frame before: so every key
    /// frame is cut of the subject a person chose on the first, not of whatever the network finds most salient.
    ///
    /// - Parameters:
    ///   - flow: the motion from the key frame before to this one (``FlowField``, in that frame's pixels).
    ///   - carried: the key frame before's mask carried to this frame along the motion: where the subject now is.
    /// - Returns: for points, each point moved by `flow`'s vector at it, or, where that lands off the carried mask,
    ///   the carried mask's pixel nearest to it (the motion is smooth across a subject's edge); the points to exclude
    ///   where they were (what they mark need not move with the subject), less those the carried mask now covers.
    ///   A box: the box round its four corners so moved (a subject that grows under a push-in keeps its box round
    ///   it), clipped to the frame (as it was, if nothing of it is left on the frame). `all` as it is. An empty
    ///   carried mask moves the points and box alone.
    public func carried(along flow: FlowField, onto carried: Mask) -> SubjectPrompt {
        func move(_ p: PixelPoint) -> PixelPoint {
            let v = flow.vector(atX: Double(p.x), y: Double(p.y))
            return PixelPoint(x: Int((Double(p.x) + v.dx).rounded()), y: Int((Double(p.y) + v.dy).rounded()))
        }
        return self.carried(onto: carried, moving: move, box: { b in
            let corners = [PixelPoint(x: b.x, y: b.y), PixelPoint(x: b.x + b.width - 1, y: b.y),
                           PixelPoint(x: b.x, y: b.y + b.height - 1),
                           PixelPoint(x: b.x + b.width - 1, y: b.y + b.height - 1)].map(move)
            let x0 = corners.map(\.x).min()!, y0 = corners.map(\.y).min()!
            return PixelRect(x: x0, y: y0, width: corners.map(\.x).max()! - x0 + 1, height: corners.map(\.y).max()! - y0 + 1)
        })
    }

    private func carried(onto carried: Mask, moving: (PixelPoint) -> PixelPoint, box: (PixelRect) -> PixelRect)
        -> SubjectPrompt {
        let w = carried.width, h = carried.height
        func inside(_ p: PixelPoint) -> Bool { carried.values[p.y * w + p.x] >= 128 }
        switch self {
        case .all:
            return .all
        case .points(let include, let exclude):
            let moved = include.map { p -> PixelPoint in
                let m = moving(p)
                let q = PixelPoint(x: min(w - 1, max(0, m.x)), y: min(h - 1, max(0, m.y)))
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
            return .box(box(b).clipped(toWidth: w, height: h) ?? b)
        }
    }
}
