/// The part of a clip's frames an animated sticker shows when it is cropped to its subject: the box of every visible
/// pixel over the whole clip, as a still sticker's canvas is its subject's box. The box is only known once the last
/// frame is cut, so the frames are kept until then (a ``FrameSpool``) and cropped as they are encoded.
public struct ClipCanvas: Sendable, Equatable {
    public let frameWidth: Int
    public let frameHeight: Int
    /// The union of the frames' boxes so far; nil while no frame has shown a pixel.
    public private(set) var box: PixelRect?

    public init(frameWidth: Int, frameHeight: Int) {
        (self.frameWidth, self.frameHeight) = (frameWidth, frameHeight)
    }

    /// Takes in `frame`'s visible pixels (alpha over 0, the still's rule: a soft edge is inside its box).
    public mutating func include(_ frame: Image) {
        precondition(frame.width == frameWidth && frame.height == frameHeight, "a frame of another size")
        var minX = frameWidth, minY = frameHeight, maxX = -1, maxY = -1
        frame.pixels.withUnsafeBufferPointer { p in
            for y in 0..<frameHeight {
                let row = y * frameWidth * 4
                var first = -1, last = -1
                for x in 0..<frameWidth where p[row + x * 4 + 3] > 0 {
                    if first < 0 { first = x }
                    last = x
                }
                guard first >= 0 else { continue }
                (minX, maxX) = (min(minX, first), max(maxX, last))
                (minY, maxY) = (min(minY, y), y)
            }
        }
        guard maxX >= 0 else { return }
        let seen = PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
        box = box.map { $0.union(seen) } ?? seen
    }

    /// The rectangle of the frame every output frame shows: the box grown by `pad` on each side (past the frame's edge
    /// where it must: room for an outline, transparent), or the whole frame when no frame showed a pixel. With
    /// `evenSides`, a side of odd length grows by one (VP9's 4:2:0 planes).
    public func rect(pad: Int, evenSides: Bool) -> PixelRect {
        var r = box.map { PixelRect(x: $0.x - pad, y: $0.y - pad, width: $0.width + 2 * pad, height: $0.height + 2 * pad) }
            ?? PixelRect(x: 0, y: 0, width: frameWidth, height: frameHeight)
        if evenSides {
            r.width += r.width % 2
            r.height += r.height % 2
        }
        return r
    }

    /// The part of `frame` inside `rect`; what lies past the frame's edge is transparent.
    public static func crop(_ frame: Image, to rect: PixelRect) -> Image {
        if rect == PixelRect(x: 0, y: 0, width: frame.width, height: frame.height) { return frame }
        var out = [UInt8](repeating: 0, count: rect.width * rect.height * 4)
        let x0 = max(0, rect.x), x1 = min(frame.width, rect.x + rect.width)
        let y0 = max(0, rect.y), y1 = min(frame.height, rect.y + rect.height)
        if x0 < x1 {
            frame.pixels.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    for y in y0..<max(y0, y1) {
                        let s = (y * frame.width + x0) * 4, d = ((y - rect.y) * rect.width + (x0 - rect.x)) * 4
                        UnsafeMutableRawPointer(dst.baseAddress! + d).copyMemory(from: src.baseAddress! + s,
                                                                                  byteCount: (x1 - x0) * 4)
                    }
                }
            }
        }
        return Image(width: rect.width, height: rect.height, pixels: out)
    }
}
