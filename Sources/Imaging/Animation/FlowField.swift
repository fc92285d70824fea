import CKernels

/// The motion of every pixel of a `width` x `height` frame to another frame, as ``OpticalFlow/between(_:_:step:)``
/// measures it: pixel `p` of this frame shows what pixel `p + F(p)` of the other one shows.
///
/// The vectors are stored on a grid `step` pixels apart (cell `(i, j)` is pixel `(j · step, i · step)`, so
/// `columns = ceil(width / step)`), in frame pixels; between cells the field is bilinear, beyond the last cell
/// of a row or column the last cell's value holds. Each cell also carries a reliability in 0 ... 1: 1 as measured,
/// lowered by ``checked(against:)`` where the motion is not consistent both ways and by ``composed(with:)``
/// where it leaves the frame.
///
/// - Important: `u`, `v` and `reliability` each hold `columns * rows` values, row-major.
public struct FlowField: Sendable, Equatable {
    /// The frame's size in pixels.
    public let width: Int, height: Int
    /// Pixels between grid cells: 1, 2 or 4.
    public let step: Int
    /// The grid's size: `ceil(width / step)` by `ceil(height / step)`.
    public let columns: Int, rows: Int
    /// Horizontal and vertical motion per cell, in frame pixels.
    public private(set) var u: [Float], v: [Float]
    /// How far each cell's vector can be trusted, 0 ... 1.
    public private(set) var reliability: [Float]

    /// A field from its cells (`reliability` 1 everywhere when nil).
    /// - Precondition: positive sizes, `step` 1, 2 or 4, and `columns * rows` values in each array.
    public init(width: Int, height: Int, step: Int, u: [Float], v: [Float], reliability: [Float]? = nil) {
        precondition(width > 0 && height > 0, "flow field dimensions must be positive")
        precondition([1, 2, 4].contains(step), "a flow field's step is 1, 2 or 4")
        let (columns, rows) = ((width + step - 1) / step, (height + step - 1) / step)
        precondition(u.count == columns * rows && v.count == columns * rows, "flow field arrays do not match the grid")
        precondition(reliability.map { $0.count == columns * rows } ?? true, "reliability does not match the grid")
        (self.width, self.height, self.step, self.columns, self.rows) = (width, height, step, columns, rows)
        (self.u, self.v) = (u, v)
        self.reliability = reliability ?? [Float](repeating: 1, count: columns * rows)
    }

    /// No motion anywhere, fully reliable: the field between a frame and itself.
    /// - Precondition: as ``init(width:height:step:u:v:reliability:)``'s.
    public static func zero(width: Int, height: Int, step: Int) -> FlowField {
        precondition(width > 0 && height > 0 && [1, 2, 4].contains(step), "flow field dimensions or step out of range")
        let zeros = [Float](repeating: 0, count: ((width + step - 1) / step) * ((height + step - 1) / step))
        return FlowField(width: width, height: height, step: step, u: zeros, v: zeros)
    }

    /// The motion at frame point (`x`, `y`) and its reliability, bilinear between cells, clamped to the grid.
    public func vector(atX x: Double, y: Double) -> (dx: Double, dy: Double, reliability: Double) {
        // NaN goes to the first cell, as the C side clamps it.
        func clamped(_ t: Double, _ last: Int) -> Double { t.isNaN ? 0 : min(max(t / Double(step), 0), Double(last)) }
        let (gx, gy) = (clamped(x, columns - 1), clamped(y, rows - 1))
        let (x0, y0) = (Int(gx), Int(gy))
        let (x1, y1) = (min(x0 + 1, columns - 1), min(y0 + 1, rows - 1))
        let (fx, fy) = (gx - Double(x0), gy - Double(y0))
        func at(_ a: [Float]) -> Double {
            let top = Double(a[y0 * columns + x0]) * (1 - fx) + Double(a[y0 * columns + x1]) * fx
            let bottom = Double(a[y1 * columns + x0]) * (1 - fx) + Double(a[y1 * columns + x1]) * fx
            return top * (1 - fy) + bottom * fy
        }
        return (at(u), at(v), at(reliability))
    }

    /// Largest share of the two vectors' squared lengths that their sum may have where the motion is consistent
    /// both ways (``checked(against:)``): Sundaram, Brox and Keutzer's 0.01, which lets a fast motion be a little
    /// off without being called an occlusion.
    public static let consistencyRelative: Float = 0.01
    /// Squared pixels the sum of the two vectors may have in any case (their 0.5): the flow's own subpixel error.
    public static let consistencyAbsolute: Float = 0.5

    /// This field (frame a to frame b) followed by `next` (frame b to frame c): the field from a to c,
    /// `F_ac(p) = F_ab(p) + F_bc(p + F_ab(p))`, on this field's grid. The reliability is the product of the two
    /// (`next`'s where the point lands), and 0 where `p + F_ab(p)` leaves frame b.
    /// - Precondition: both fields describe frames of the same size.
    public func composed(with next: FlowField) -> FlowField {
        precondition(width == next.width && height == next.height, "flow fields of frames of different sizes")
        var (cu, cv, cr) = (u, v, reliability)
        let status = withField { ab in
            next.withField { bc in
                cu.withUnsafeMutableBufferPointer { ou in
                    cv.withUnsafeMutableBufferPointer { ov in
                        cr.withUnsafeMutableBufferPointer { or in
                            ck_flow_compose(&ab, &bc, ou.baseAddress, ov.baseAddress, or.baseAddress, ou.count)
                        }
                    }
                }
            }
        }
        precondition(status == CK_FLOW_OK, "ck_flow_compose refused valid fields (\(status))")
        return FlowField(width: width, height: height, step: step, u: cu, v: cv, reliability: cr)
    }

    /// This field (frame a to frame b) with reliability 0 where `backward` (frame b to frame a) does not bring
    /// the point back (Sundaram, Brox and Keutzer's forward-backward check): where
    /// `|F(p) + B(q)|² > consistencyRelative · (|F(p)|² + |B(q)|²) + consistencyAbsolute` for `q = p + F(p)`,
    /// or where `q` leaves the frame. What one frame occludes or uncovers has no consistent motion, so that is
    /// what the check finds. Elsewhere the reliability is kept.
    /// - Precondition: both fields describe frames of the same size.
    public func checked(against backward: FlowField) -> FlowField {
        precondition(width == backward.width && height == backward.height, "flow fields of frames of different sizes")
        var checked = reliability
        let status = withField { forward in
            backward.withField { back in
                checked.withUnsafeMutableBufferPointer { r in
                    ck_flow_check(&forward, &back, Self.consistencyRelative, Self.consistencyAbsolute, r.baseAddress,
                                  r.count)
                }
            }
        }
        precondition(status == CK_FLOW_OK, "ck_flow_check refused valid fields (\(status))")
        return FlowField(width: width, height: height, step: step, u: u, v: v, reliability: checked)
    }

    /// `mask` carried along the motion by a backward warp: `out(p) = mask(p + F(p))`, bilinear and rounded, where
    /// this field is the flow from the frame that gets the mask to the frame the mask belongs to. The second mask
    /// is the field's reliability at each pixel (0 ... 255); where `p + F(p)` leaves the frame both are 0.
    /// - Precondition: `mask` is the frame's size.
    public func warp(_ mask: Mask) -> (mask: Mask, reliability: Mask) {
        precondition(mask.width == width && mask.height == height, "the mask is not the flow field's frame size")
        var out = [UInt8](repeating: 0, count: width * height)
        var trust = [UInt8](repeating: 0, count: width * height)
        let status = withField { field in
            mask.values.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { o in
                    trust.withUnsafeMutableBufferPointer { t in
                        ck_flow_warp(&field, m.baseAddress, m.count, o.baseAddress, t.baseAddress, o.count)
                    }
                }
            }
        }
        precondition(status == CK_FLOW_OK, "ck_flow_warp refused a valid field (\(status))")
        return (Mask(width: width, height: height, values: out), Mask(width: width, height: height, values: trust))
    }

    /// The field as CKernels describes one, valid while `body` runs.
    private func withField<R>(_ body: (inout ck_flow_field) -> R) -> R {
        u.withUnsafeBufferPointer { u in
            v.withUnsafeBufferPointer { v in
                reliability.withUnsafeBufferPointer { r in
                    var field = ck_flow_field(width: width, height: height, step: step, count: u.count,
                                              u: u.baseAddress, v: v.baseAddress, r: r.baseAddress)
                    return body(&field)
                }
            }
        }
    }
}
