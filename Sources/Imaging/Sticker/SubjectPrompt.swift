/// A pixel of a photo as displayed (after its orientation is applied), x to the right, y down.
public struct PixelPoint: Sendable, Hashable {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x; self.y = y
    }
}

/// Which subject of a photo a cut-out is of, as a person says it: a point (or points) on it, points off it, a box
/// round it, or every subject together. Evidence for the cut, not a model of its own: `StickerCutPlan` keeps the
/// parts of its subject map the prompt selects and cuts by colour (GrabCut) where the map has nothing there.
///
/// Coordinates are pixels of the photo as displayed (after orientation). ``validate(width:height:)`` says whether
/// a prompt fits a photo; a prompt that does not is the caller's error, never the cut's.
public enum SubjectPrompt: Sendable, Equatable {
    /// Every subject the cut finds, together: its parts down to a hundredth of the largest (the unprompted cut keeps
    /// those of a fifth).
    case all
    /// The subject under `include` (one or more points), not the parts under `exclude`.
    case points(include: [PixelPoint], exclude: [PixelPoint])
    /// The subject inside the box (`PixelRect`: x, y, width, height); nothing outside it is kept.
    case box(PixelRect)

    /// The subject under one point.
    public static func point(_ x: Int, _ y: Int) -> SubjectPrompt { .points(include: [PixelPoint(x: x, y: y)], exclude: []) }

    /// Why a prompt does not fit a photo, with the part of the prompt at fault.
    public struct Invalid: Error, Sendable, Equatable {
        /// Where in the prompt: `point`, `points[2]`, `exclude[0]`, `box`.
        public var path: String
        public var message: String
    }

    /// Whether every point lies on the photo and the box has an area on it.
    /// - Throws: ``Invalid`` naming the first part that does not fit.
    public func validate(width: Int, height: Int) throws(Invalid) {
        func inside(_ p: PixelPoint) -> Bool { p.x >= 0 && p.y >= 0 && p.x < width && p.y < height }
        switch self {
        case .all:
            return
        case .points(let include, let exclude):
            guard !include.isEmpty else { throw Invalid(path: "points", message: "at least one point is needed") }
            for (i, p) in include.enumerated() where !inside(p) {
                throw Invalid(path: include.count == 1 && exclude.isEmpty ? "point" : "points[\(i)]",
                              message: "(\(p.x), \(p.y)) lies outside the \(width)x\(height) photo")
            }
            for (i, p) in exclude.enumerated() where !inside(p) {
                throw Invalid(path: "exclude[\(i)]", message: "(\(p.x), \(p.y)) lies outside the \(width)x\(height) photo")
            }
        case .box(let r):
            guard r.width > 0, r.height > 0 else { throw Invalid(path: "box", message: "the box has no area") }
            guard r.x < width, r.y < height, r.x + r.width > 0, r.y + r.height > 0 else {
                throw Invalid(path: "box", message: "the box lies outside the \(width)x\(height) photo")
            }
        }
    }
}

extension SubjectPrompt {
    /// The prompt on the same picture at another size: pixels of a `fromWidth` x `fromHeight` frame as pixels of a
    /// `toWidth` x `toHeight` one. A point becomes the pixel its centre falls in; a box keeps every pixel it touched
    /// (never less than one).
    public func scaled(fromWidth fw: Int, height fh: Int, toWidth tw: Int, height th: Int) -> SubjectPrompt {
        let sx = Double(tw) / Double(fw), sy = Double(th) / Double(fh)
        func point(_ p: PixelPoint) -> PixelPoint {
            PixelPoint(x: min(tw - 1, max(0, Int((Double(p.x) + 0.5) * sx))),
                       y: min(th - 1, max(0, Int((Double(p.y) + 0.5) * sy))))
        }
        switch self {
        case .all: return .all
        case .points(let include, let exclude): return .points(include: include.map(point), exclude: exclude.map(point))
        case .box(let b):
            let x0 = Int((Double(b.x) * sx).rounded(.down)), y0 = Int((Double(b.y) * sy).rounded(.down))
            let x1 = max(x0 + 1, Int((Double(b.x + b.width) * sx).rounded(.up)))
            let y1 = max(y0 + 1, Int((Double(b.y + b.height) * sy).rounded(.up)))
            return .box(PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0))
        }
    }
}
