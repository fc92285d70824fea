/// Porter-Duff compositing and cropping on straight-alpha ``Image``s.
///
/// These functions do not throw: out-of-range placements are clipped, and sizes below 1 are
/// raised to 1 (validating user-supplied sizes is the caller's job).
public enum Compositing {
    /// Porter-Duff source-over of `top` placed with its top-left corner at (`x`, `y`) on
    /// `bottom`; straight alpha in and out. The result has `bottom`'s size; the parts of `top`
    /// outside it are clipped (any offset, even far outside, is valid).
    public static func over(_ top: Image, on bottom: Image, at x: Int, y: Int) -> Image {
        var result = bottom
        over(top, onto: &result, at: x, y: y)
        return result
    }

    /// ``over(_:on:at:y:)`` in place: `bottom` is changed where `top` covers it, and not copied when it is the only
    /// reference to its pixels (a sheet or canvas composed of many stickers).
    public static func over(_ top: Image, onto bottom: inout Image, at x: Int, y: Int) {
        // Offsets are clamped first so the sums below cannot overflow for any Int input.
        let x0 = max(0, x.clampedOffset), y0 = max(0, y.clampedOffset)
        let x1 = min(bottom.width, x.clampedOffset + top.width)
        let y1 = min(bottom.height, y.clampedOffset + top.height)
        guard x0 < x1, y0 < y1 else { return }
        let dx = x.clampedOffset, dy = y.clampedOffset, width = bottom.width
        top.pixels.withUnsafeBufferPointer { t in
            bottom.pixels.withUnsafeMutableBufferPointer { b in
                for row in y0..<y1 {
                    var ti = ((row - dy) * top.width + (x0 - dx)) * 4
                    var bi = (row * width + x0) * 4
                    for _ in x0..<x1 {
                        blendOver(t, ti, b, bi)
                        ti += 4; bi += 4
                    }
                }
            }
        }
    }

    /// Straight-alpha source-over of one pixel, in exact integer arithmetic:
    /// `Ao = At + Ab(1 - At)`, `Co = (Ct At + Cb Ab (1 - At)) / Ao`.
    @inline(__always)
    static func blendOver(_ t: UnsafeBufferPointer<UInt8>, _ ti: Int, _ b: UnsafeMutableBufferPointer<UInt8>, _ bi: Int) {
        let ta = UInt32(t[ti + 3])
        if ta == 0 { return }
        if ta == 255 {
            b[bi] = t[ti]; b[bi + 1] = t[ti + 1]; b[bi + 2] = t[ti + 2]; b[bi + 3] = 255
            return
        }
        let ba = UInt32(b[bi + 3])
        let wt = ta * 255                 // top weight, scaled by 255^2
        let wb = ba * (255 - ta)          // bottom weight, scaled by 255^2
        let ao = wt + wb                  // output alpha scaled by 255 (> 0 since ta > 0)
        for c in 0..<3 {
            b[bi + c] = UInt8((UInt32(t[ti + c]) * wt + UInt32(b[bi + c]) * wb + ao / 2) / ao)
        }
        b[bi + 3] = UInt8((ao + 127) / 255)
    }

    /// The part of `image` inside the rectangle, clipped to the image. An empty intersection
    /// gives a 1 x 1 transparent image (an ``Image`` cannot be empty).
    public static func crop(_ image: Image, x: Int, y: Int, width: Int, height: Int) -> Image {
        let x0 = max(0, x.clampedOffset), y0 = max(0, y.clampedOffset)
        let x1 = min(image.width, x.clampedOffset + max(0, width.clampedOffset))
        let y1 = min(image.height, y.clampedOffset + max(0, height.clampedOffset))
        guard x0 < x1, y0 < y1 else { return Image(width: 1, height: 1) }
        if x0 == 0, y0 == 0, x1 == image.width, y1 == image.height { return image }
        let w = x1 - x0
        var out = [UInt8](repeating: 0, count: w * (y1 - y0) * 4)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for row in y0..<y1 {
                    let s = (row * image.width + x0) * 4
                    let d = (row - y0) * w * 4
                    UnsafeMutableRawPointer(dst.baseAddress! + d)
                        .copyMemory(from: src.baseAddress! + s, byteCount: w * 4)
                }
            }
        }
        return Image(width: w, height: y1 - y0, pixels: out)
    }
}

fileprivate extension Int {
    /// The value limited to ±2^40, far beyond any image side, so offset arithmetic cannot
    /// overflow.
    var clampedOffset: Int { Swift.min(Swift.max(self, -(1 << 40)), 1 << 40) }
}
