/// The masks of an animated sticker's frames: the subject is segmented on key frames only, and every frame
/// between two key frames gets their masks blended by its place between them.
///
/// Why: a segmentation per frame decides each edge pixel afresh, so the edge shimmers where the scene is still
/// (flicker); blending the key frames' masks makes consecutive frames differ by at most 1/k of what two key
/// frames differ by, k frames apart. Blended where they stand, two key masks of a moving subject would cross-fade
/// between its two places; the worker first moves both to where the subject is in the frame (``MaskMotion``).
public enum KeyFrameMasks {
    /// `a` and `b` blended, `weight` 0 giving `a` and 1 giving `b`.
    public static func interpolate(_ a: Mask, _ b: Mask, weight: Double) -> Mask {
        mix(a, b, weight: weight, nearerAbove: 255)
    }

    /// `a` and `b` blended as ``interpolate(_:_:weight:)`` blends them where they nearly agree (a soft edge both
    /// have stays soft), and where one says subject and the other background (values more than 128 apart) the
    /// nearer key frame's value: a linear blend there would show a see-through ghost of the subject for frames on
    /// end. Which side of 128 a pixel is on is the linear blend's (it crosses 128 at the middle too).
    ///
    /// `aSeen` and `bSeen` are the parts of the frame each mask knows (``MaskMotion/Shift/seenPart(width:height:)``;
    /// nil: the whole frame). Outside its part, a mask carried from another frame says background only because the
    /// subject was off that frame there, so where only one mask knows a pixel, its value stands.
    public static func blend(_ a: Mask, _ b: Mask, weight: Double, aSeen: PixelRect? = nil, bSeen: PixelRect? = nil)
        -> Mask {
        var out = mix(a, b, weight: weight, nearerAbove: 128)
        let whole = PixelRect(x: 0, y: 0, width: a.width, height: a.height)
        let (sa, sb) = (aSeen ?? whole, bSeen ?? whole)
        guard sa != whole || sb != whole else { return out }
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = PixelPoint(x: x, y: y), i = y * a.width + x
                let (ka, kb) = (sa.contains(p), sb.contains(p))
                if ka != kb { out.values[i] = ka ? a.values[i] : b.values[i] }
            }
        }
        return out
    }

    /// The per-pixel median of three masks of one frame: `middle` is its own, `first` and `last` are two others
    /// carried to it. Where `first` or `last` never saw a pixel (outside `firstSeen` or `lastSeen`, nil: the whole
    /// frame) `middle`'s value counts in its place. Where `first` and `last` agree against `middle`, theirs stands.
    public static func median(_ first: Mask, _ middle: Mask, _ last: Mask, firstSeen: PixelRect? = nil,
                              lastSeen: PixelRect? = nil) -> Mask {
        precondition(first.width == middle.width && first.height == middle.height && last.width == middle.width
                     && last.height == middle.height, "masks of different sizes")
        let (w, h) = (middle.width, middle.height)
        let whole = PixelRect(x: 0, y: 0, width: w, height: h)
        let (sf, sl) = (firstSeen ?? whole, lastSeen ?? whole)
        var out = middle
        for y in 0..<h {
            for x in 0..<w {
                let p = PixelPoint(x: x, y: y), i = y * w + x
                let m = middle.values[i]
                let a = sf.contains(p) ? first.values[i] : m
                let b = sl.contains(p) ? last.values[i] : m
                out.values[i] = max(min(a, m), min(max(a, m), b))
            }
        }
        return out
    }

    /// The linear blend, except where `a` and `b` differ by more than `nearerAbove`: there the nearer one's value.
    private static func mix(_ a: Mask, _ b: Mask, weight: Double, nearerAbove limit: Int) -> Mask {
        precondition(a.width == b.width && a.height == b.height, "masks of different sizes")
        let w = Int((max(0, min(1, weight)) * 256).rounded())
        var out = a
        out.values.withUnsafeMutableBufferPointer { o in
            b.values.withUnsafeBufferPointer { bv in
                for i in 0..<o.count {
                    let x = Int(o[i]), y = Int(bv[i])
                    if abs(x - y) > limit {
                        o[i] = w >= 128 ? bv[i] : o[i]
                    } else {
                        o[i] = UInt8((x * (256 - w) + y * w + 128) >> 8)
                    }
                }
            }
        }
        return out
    }

    /// `image`'s alpha channel as a mask: a frame that is already a sticker keeps its own edge.
    public static func alpha(of image: Image) -> Mask {
        var values = [UInt8](repeating: 0, count: image.pixelCount)
        image.pixels.withUnsafeBufferPointer { p in
            for i in 0..<values.count { values[i] = p[i * 4 + 3] }
        }
        return Mask(width: image.width, height: image.height, values: values)
    }

    /// Multiplies `image`'s alpha by `mask` (same size), clearing the colour of pixels left invisible.
    public static func apply(_ mask: Mask, to image: inout Image) {
        precondition(mask.width == image.width && mask.height == image.height, "mask and image of different sizes")
        image.pixels.withUnsafeMutableBufferPointer { p in
            mask.values.withUnsafeBufferPointer { m in
                for i in 0..<m.count {
                    let a = (Int(p[i * 4 + 3]) * Int(m[i]) + 127) / 255
                    p[i * 4 + 3] = UInt8(a)
                    if a == 0 { p[i * 4] = 0; p[i * 4 + 1] = 0; p[i * 4 + 2] = 0 }
                }
            }
        }
    }

    /// Flicker between two consecutive masks: the pixels whose side of 128 changed, as a share of the pixels inside
    /// either (0 when neither has any).
    public static func changedShare(_ a: Mask, _ b: Mask) -> Double {
        precondition(a.width == b.width && a.height == b.height, "masks of different sizes")
        var changed = 0, inside = 0
        a.values.withUnsafeBufferPointer { av in
            b.values.withUnsafeBufferPointer { bv in
                for i in 0..<av.count {
                    let x = av[i] >= 128, y = bv[i] >= 128
                    if x != y { changed += 1 }
                    if x || y { inside += 1 }
                }
            }
        }
        return inside == 0 ? 0 : Double(changed) / Double(inside)
    }
}
