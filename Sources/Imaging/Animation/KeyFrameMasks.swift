import Compute

/// The masks of an animated sticker's frames: the subject is segmented on key frames only, and every frame
/// between two key frames gets their masks blended by its place between them.
///
/// Why: a segmentation per frame decides each edge pixel afresh, so the edge shimmers where the scene is still
/// (flicker); blending the key frames' masks makes consecutive frames differ by at most 1/k of what two key
/// frames differ by, k frames apart. Blended where they stand, two key masks of a moving subject would cross-fade
/// between its two places; the worker first carries both to where the subject is in the frame (``FlowField``).
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
    /// `aReliability` and `bReliability` (0...255, a warp's: ``FlowField/warp(_:)``; nil: reliable everywhere) say
    /// where each mask, carried from another frame, can be trusted: off its own frame, or where the motion was
    /// occluded or uncovered, it says nothing. Where only one is trusted (at least 128), its value stands; where
    /// neither is, the blend as above (what both carries lost is still somewhere near).
    public static func blend(_ a: Mask, _ b: Mask, weight: Double, aReliability: Mask? = nil, bReliability: Mask? = nil)
        -> Mask {
        precondition([aReliability, bReliability].allSatisfy { $0 == nil || $0!.values.count == a.values.count },
                     "reliabilities of another size")
        var out = mix(a, b, weight: weight, nearerAbove: 128)
        guard aReliability != nil || bReliability != nil else { return out }
        out.values.withUnsafeMutableBufferPointer { o in
            for i in 0..<o.count {
                let (ka, kb) = ((aReliability?.values[i] ?? 255) >= 128, (bReliability?.values[i] ?? 255) >= 128)
                if ka != kb { o[i] = ka ? a.values[i] : b.values[i] }
            }
        }
        return out
    }

    /// The per-pixel median of three masks of one frame: `middle` is its own, `first` and `last` are two others
    /// carried to it. Where `first` or `last` cannot be trusted (its reliability, 0...255, under 128; nil: reliable
    /// everywhere) `middle`'s value counts in its place. Where `first` and `last` agree against `middle`, theirs
    /// stands.
    public static func median(_ first: Mask, _ middle: Mask, _ last: Mask, firstReliability: Mask? = nil,
                              lastReliability: Mask? = nil) -> Mask {
        precondition(first.width == middle.width && first.height == middle.height && last.width == middle.width
                     && last.height == middle.height
                     && [firstReliability, lastReliability].allSatisfy { $0 == nil || $0!.values.count == middle.values.count },
                     "masks of different sizes")
        var out = middle
        out.values.withUnsafeMutableBufferPointer { o in
            for i in 0..<o.count {
                let m = middle.values[i]
                let a = (firstReliability?.values[i] ?? 255) >= 128 ? first.values[i] : m
                let b = (lastReliability?.values[i] ?? 255) >= 128 ? last.values[i] : m
                o[i] = max(min(a, m), min(max(a, m), b))
            }
        }
        return out
    }

    /// `carried` where its `reliability` (0...255, a warp's) is at least 128, and `elsewhere`'s value where it is not
    /// (what came into view, or where the motion was lost): a mask carried from another frame standing in for this
    /// frame's own.
    public static func carried(_ carried: Mask, reliability: Mask, elsewhere: Mask) -> Mask {
        precondition(carried.values.count == elsewhere.values.count && reliability.values.count == elsewhere.values.count,
                     "masks of different sizes")
        var out = elsewhere
        out.values.withUnsafeMutableBufferPointer { o in
            for i in 0..<o.count where reliability.values[i] >= 128 { o[i] = carried.values[i] }
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

    /// Cuts `image`'s subject out as a still sticker's is cut: ``apply(_:to:)``, and with `decontaminating` the soft
    /// edge's colours replaced by the subject's own (``ForegroundEstimator``), so no frame keeps a fringe of the
    /// background a still of it would not.
    /// - Throws: `CancellationError` when `loop` (over which the estimate's bands spread) is cancelled.
    public static func cutOut(_ mask: Mask, from image: inout Image, decontaminating: Bool,
                              on loop: some ParallelLoop) throws {
        guard decontaminating else { return apply(mask, to: &image) }
        // The estimate reads the background's colours round the edge, which the mask is about to clear.
        let original = image
        apply(mask, to: &image)
        let whole = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        try image.pixels.withUnsafeMutableBufferPointer { out in
            try ForegroundEstimator.estimate(original, alpha: mask, in: whole, into: out.baseAddress!, origin: (0, 0),
                                             width: original.width, on: loop)
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
