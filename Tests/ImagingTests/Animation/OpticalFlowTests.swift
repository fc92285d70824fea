import CKernels
import Foundation
import Testing
@testable import Imaging

@Suite("Optical flow", .timeLimit(.minutes(10)))
struct OpticalFlowTests {
    static let (width, height) = (512, 288)

    /// A grey texture with detail at every scale from 3 to 48 pixels (five octaves of value noise), larger than the
    /// frames by `margin` on each side so that moved frames sample texture, not a clamped edge.
    struct Texture {
        static let margin = 32
        let width: Int, height: Int
        let values: [Float]

        init(width frameWidth: Int, height frameHeight: Int, seed: UInt64) {
            (width, height) = (frameWidth + 2 * Self.margin, frameHeight + 2 * Self.margin)
            var random = SplitMix64(seed: seed)
            var sum = [Float](repeating: 0, count: width * height)
            let octaves: [(period: Int, amplitude: Float)] = [(3, 0.6), (6, 1), (12, 1), (24, 0.8), (48, 0.6)]
            for (period, amplitude) in octaves {
                let (gw, gh) = (width / period + 2, height / period + 2)
                let lattice = (0..<(gw * gh)).map { _ in Float(random.nextUnit()) }
                for y in 0..<height {
                    let (y0, ty) = (y / period, Self.smooth(Float(y % period) / Float(period)))
                    for x in 0..<width {
                        let (x0, tx) = (x / period, Self.smooth(Float(x % period) / Float(period)))
                        let top = lattice[y0 * gw + x0] + (lattice[y0 * gw + x0 + 1] - lattice[y0 * gw + x0]) * tx
                        let bottom = lattice[(y0 + 1) * gw + x0]
                            + (lattice[(y0 + 1) * gw + x0 + 1] - lattice[(y0 + 1) * gw + x0]) * tx
                        sum[y * width + x] += amplitude * (top + (bottom - top) * ty)
                    }
                }
            }
            let total = octaves.reduce(0) { $0 + $1.amplitude }
            // Stretched round mid-grey: a sum of octaves bunches up in the middle.
            values = sum.map { min(max(((($0 / total) - 0.5) * 2.2 + 0.5) * 255, 0), 255) }
        }

        static func smooth(_ t: Float) -> Float { t * t * (3 - 2 * t) }

        /// Bilinear at frame point (x, y) (the texture's (x + margin, y + margin)), clamped to the texture.
        func sample(_ x: Double, _ y: Double) -> Float {
            let gx = min(max(x + Double(Self.margin), 0), Double(width - 1))
            let gy = min(max(y + Double(Self.margin), 0), Double(height - 1))
            let (x0, y0) = (Int(gx), Int(gy))
            let (x1, y1) = (min(x0 + 1, width - 1), min(y0 + 1, height - 1))
            let (fx, fy) = (Float(gx - Double(x0)), Float(gy - Double(y0)))
            let top = values[y0 * width + x0] + (values[y0 * width + x1] - values[y0 * width + x0]) * fx
            let bottom = values[y1 * width + x0] + (values[y1 * width + x1] - values[y1 * width + x0]) * fx
            return top + (bottom - top) * fy
        }
    }

    static let texture = Texture(width: width, height: height, seed: 11)
    static let background = Texture(width: width, height: height, seed: 23)

    /// A frame whose pixel (x, y) shows `value(x, y)`, rounded to 8 bits (as a decoded frame is).
    static func frame(width: Int = Self.width, height: Int = Self.height, _ value: (Double, Double) -> Float) -> LumaPlane {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let v = UInt8(value(Double(x), Double(y)).rounded())
                (rgb[(y * width + x) * 3], rgb[(y * width + x) * 3 + 1], rgb[(y * width + x) * 3 + 2]) = (v, v, v)
            }
        }
        return rgb.withUnsafeBufferPointer { LumaPlane(pixels: $0, channels: 3, width: width, height: height) }
    }

    /// A motion `p -> a · (p - c) + c + t` about the frame's centre `c`.
    struct Affine: CustomStringConvertible, Sendable {
        var a = 1.0, b = 0.0, c = 0.0, d = 1.0, tx = 0.0, ty = 0.0
        let name: String
        var description: String { name }
        static let centre = (Double(OpticalFlowTests.width - 1) / 2, Double(OpticalFlowTests.height - 1) / 2)

        /// Where pixel (x, y) of the first frame is in the second: the true flow is this minus (x, y).
        func apply(_ x: Double, _ y: Double) -> (Double, Double) {
            let (dx, dy) = (x - Self.centre.0, y - Self.centre.1)
            return (a * dx + b * dy + Self.centre.0 + tx, c * dx + d * dy + Self.centre.1 + ty)
        }

        /// The point of the first frame that lands on (x, y) of the second.
        func invert(_ x: Double, _ y: Double) -> (Double, Double) {
            let (qx, qy) = (x - Self.centre.0 - tx, y - Self.centre.1 - ty)
            let det = a * d - b * c
            return ((d * qx - b * qy) / det + Self.centre.0, (-c * qx + a * qy) / det + Self.centre.1)
        }

        static func translation(_ tx: Double, _ ty: Double) -> Affine { Affine(tx: tx, ty: ty, name: "translation (\(tx), \(ty))") }
        static func zoom(_ s: Double) -> Affine { Affine(a: s, d: s, name: "zoom \(s)") }
        static func rotation(degrees: Double) -> Affine {
            let r = degrees * .pi / 180
            return Affine(a: cos(r), b: -sin(r), c: sin(r), d: cos(r), name: "rotation \(degrees)°")
        }
    }

    /// The first frame (the texture) and the second (the texture moved by `motion`, rendered by bilinear sampling).
    static func pair(_ motion: Affine, texture: Texture = texture) -> (LumaPlane, LumaPlane) {
        (frame { texture.sample($0, $1) }, frame { x, y in
            let (sx, sy) = motion.invert(x, y)
            return texture.sample(sx, sy)
        })
    }

    /// The mean endpoint error of `flow` against `truth` over the pixels at least `border` pixels inside the frame.
    static func endpointError(_ flow: FlowField, border: Int = 16, truth: (Double, Double) -> (Double, Double)) -> Double {
        var sum = 0.0, count = 0
        for y in border..<(flow.height - border) {
            for x in border..<(flow.width - border) {
                let (fx, fy) = (Double(x), Double(y))
                let measured = flow.vector(atX: fx, y: fy), expected = truth(fx, fy)
                sum += ((measured.dx - expected.0) * (measured.dx - expected.0)
                        + (measured.dy - expected.1) * (measured.dy - expected.1)).squareRoot()
                count += 1
            }
        }
        return sum / Double(count)
    }

    @Test("Known motions of a textured frame are measured to about a tenth of a pixel",
          arguments: [Affine.translation(2.5, -1.25), .zoom(1.04), .rotation(degrees: 2), .translation(12, 0),
                      .translation(-6, 9)])
    func measuresKnownMotion(_ motion: Affine) throws {
        let (a, b) = Self.pair(motion)
        let flow = try OpticalFlow.between(a, b)
        #expect(flow.step == 2 && flow.columns == 256 && flow.rows == 144)
        let error = Self.endpointError(flow) { x, y in
            let (mx, my) = motion.apply(x, y)
            return (mx - x, my - y)
        }
        // The error of answering "no motion", so a failure says how far off the field is.
        let still = Self.endpointError(.zero(width: Self.width, height: Self.height, step: 2)) { x, y in
            let (mx, my) = motion.apply(x, y)
            return (mx - x, my - y)
        }
        #expect(error < 0.12, "\(motion): mean endpoint error \(error) px (no motion: \(still) px)")
    }

    @Test("Every step gives the field on its own grid, and identical frames give no motion")
    func stepsAndStillness() throws {
        let (a, b) = Self.pair(.translation(3, 2))
        for step in [1, 2, 4] {
            let flow = try OpticalFlow.between(a, b, step: step)
            #expect(flow.columns == (Self.width + step - 1) / step && flow.rows == (Self.height + step - 1) / step)
            let error = Self.endpointError(flow) { _, _ in (3, 2) }
            #expect(error < 0.2, "step \(step): mean endpoint error \(error) px")
        }
        let still = try OpticalFlow.between(a, a)
        #expect(still.u.allSatisfy { $0 == 0 } && still.v.allSatisfy { $0 == 0 },
                "largest motion of a frame against itself: \(still.u.map(abs).max() ?? 0), \(still.v.map(abs).max() ?? 0)")
        #expect(still.reliability.allSatisfy { $0 == 1 })
    }

    @Test("Every instruction-set level computes the same field, bit for bit")
    func sameAtEveryLevel() throws {
        let (a, b) = Self.pair(.rotation(degrees: 2))
        let supported = ck_supported_level()
        defer { ck_use_level(supported) }
        var fields: [FlowField] = []
        for level in CK_BASELINE...supported {
            ck_use_level(level)
            fields.append(try OpticalFlow.between(a, b))
        }
        for (level, field) in fields.enumerated().dropFirst() {
            let differing = zip(field.u + field.v, fields[0].u + fields[0].v).filter { $0.bitPattern != $1.bitPattern }
            #expect(differing.isEmpty, "level \(level): \(differing.count) values differ from the baseline's")
        }
    }

    @Test("A flow in a kept scratch is the flow in its own, bit for bit, whatever the scratch held and however it grew")
    func aKeptScratchChangesNothing() throws {
        let scratch = OpticalFlow.Scratch()
        let (a, b) = Self.pair(.rotation(degrees: 2))
        // The top left 200 x 120 of a plane (grey as RGB, whose luma is the grey).
        func corner(_ plane: LumaPlane) -> LumaPlane {
            let grey = (0..<120).flatMap { y in (0..<200).flatMap { x in Array(repeating: plane.values[y * plane.width + x], count: 3) } }
            return grey.withUnsafeBufferPointer { LumaPlane(pixels: $0, channels: 3, width: 200, height: 120) }
        }
        let (small, smallB) = (corner(a), corner(b))
        // Small first (the scratch grows for the large pair), then the large pair twice (the second time on what the
        // first left), then small again in the large scratch.
        let pairs = [(small, smallB), (a, b), (b, a), (a, b), (small, smallB)]
        for (k, (from, to)) in pairs.enumerated() {
            let kept = try OpticalFlow.between(from, to, scratch: scratch), own = try OpticalFlow.between(from, to)
            let differing = zip(kept.u + kept.v, own.u + own.v).filter { $0.bitPattern != $1.bitPattern }
            #expect(differing.isEmpty && kept.u.count == own.u.count, "pair \(k): \(differing.count) values differ")
        }
    }

    @Test("Flows of two translations compose to their sum")
    func composesMeasuredTranslations() throws {
        let first = Affine.translation(4, -3), both = Affine.translation(4 - 2.5, -3 + 5)
        let a = Self.frame { Self.texture.sample($0, $1) }
        let b = Self.frame { x, y in let p = first.invert(x, y); return Self.texture.sample(p.0, p.1) }
        let c = Self.frame { x, y in let p = both.invert(x, y); return Self.texture.sample(p.0, p.1) }
        let ac = try OpticalFlow.between(a, b).composed(with: try OpticalFlow.between(b, c))
        let error = Self.endpointError(ac) { _, _ in (1.5, 2) }
        #expect(error < 0.12, "mean endpoint error of the composed field: \(error) px")
    }

    @Test("Composition samples the second field where the first one lands, and leaving the frame is unreliable")
    func composesWhereTheFirstFieldLands() {
        // Two zooms about the centre: F_ab(p) = 0.1 (p - c), F_bc(q) = 0.1 (q - c), so F_ac(p) = 0.21 (p - c); a
        // composition that sampled F_bc at p would give 0.2 (p - c).
        let (w, h, step) = (64, 48, 2)
        let (cx, cy) = (31.5, 23.5)
        func zoom(_ s: Float) -> FlowField {
            let (columns, rows) = ((w + step - 1) / step, (h + step - 1) / step)
            let cells = (0..<(columns * rows)).map { ($0 % columns * step, $0 / columns * step) }
            return FlowField(width: w, height: h, step: step, u: cells.map { (s - 1) * (Float($0.0) - Float(cx)) },
                             v: cells.map { (s - 1) * (Float($0.1) - Float(cy)) })
        }
        let ac = zoom(1.1).composed(with: zoom(1.1))
        var worst = 0.0
        for y in stride(from: 16, to: 32, by: 2) {
            for x in stride(from: 20, to: 44, by: 2) {
                let f = ac.vector(atX: Double(x), y: Double(y))
                worst = max(worst, abs(f.dx - 0.21 * (Double(x) - cx)), abs(f.dy - 0.21 * (Double(y) - cy)))
                #expect(f.reliability == 1, "reliability at (\(x), \(y)): \(f.reliability)")
            }
        }
        #expect(worst < 1e-4, "largest error of the composed field inside: \(worst) px")
        // Corner cells land 3 pixels beyond the frame: nothing there to follow.
        #expect(ac.vector(atX: 0, y: 0).reliability == 0 && ac.vector(atX: 62, y: 46).reliability == 0)
        // Translations: the sum, and reliability 0 exactly on the cells carried off the frame.
        let (columns, rows) = (32, 24)
        func shift(_ dx: Float, _ dy: Float) -> FlowField {
            FlowField(width: w, height: h, step: step, u: .init(repeating: dx, count: columns * rows),
                      v: .init(repeating: dy, count: columns * rows))
        }
        let sum = shift(6, -4).composed(with: shift(-1.5, 2.5))
        #expect(sum.u.allSatisfy { $0 == 4.5 } && sum.v.allSatisfy { $0 == -1.5 })
        let lost = (0..<(columns * rows)).filter { sum.reliability[$0] == 0 }
        let expected = (0..<(columns * rows)).filter { $0 % columns * step + 6 > w - 1 || $0 / columns * step - 4 < 0 }
        #expect(lost == expected, "\(lost.count) unreliable cells, \(expected.count) expected")
    }

    /// Frame pair for the consistency check: a textured square moving `dx` pixels right over a static textured
    /// background.
    static func movingSquare(x: Int, y: Int, side: Int, dx: Int) -> (LumaPlane, LumaPlane) {
        func scene(_ left: Int) -> LumaPlane {
            frame { px, py in
                let inside = Int(px) >= left && Int(px) < left + side && Int(py) >= y && Int(py) < y + side
                return inside ? texture.sample(px - Double(left), py - Double(y)) : background.sample(px, py)
            }
        }
        return (scene(x), scene(x + dx))
    }

    @Test("The background a moving square occludes or uncovers fails the forward-backward check, the rest passes")
    func consistency() throws {
        let (x, y, side, dx) = (200, 100, 96, 10)
        let (a, b) = Self.movingSquare(x: x, y: y, side: side, dx: dx)
        let forward = try OpticalFlow.between(a, b), backward = try OpticalFlow.between(b, a)
        // Forward (frame a's pixels): the background right of the square is covered in b. Backward (frame b's
        // pixels): the background left of the moved square was under it in a.
        let checks = [("occluded", forward.checked(against: backward), x + side, x, forward),
                      ("uncovered", backward.checked(against: forward), x, x + dx, backward)]
        for (name, checked, strip, squareLeft, unchecked) in checks {
            #expect(unchecked.reliability.allSatisfy { $0 == 1 })
            #expect(checked.reliability.allSatisfy { $0 == 0 || $0 == 1 })
            var stripCells = 0, stripFailed = 0, restCells = 0, restPassed = 0
            for i in 0..<checked.rows {
                for j in 0..<checked.columns {
                    let (px, py) = (j * checked.step, i * checked.step)
                    let reliable = checked.reliability[i * checked.columns + j] == 1
                    if px >= strip + 2 && px < strip + dx - 2 && py >= y + 4 && py < y + side - 4 {
                        stripCells += 1
                        if !reliable { stripFailed += 1 }
                    }
                    // Away from the square's edges in either frame (a patch blurs the flow across an edge) and from
                    // the frame's borders.
                    let nearSquare = px >= x - 12 && px < x + dx + side + 12 && py >= y - 12 && py < y + side + 12
                    let onSquare = px >= squareLeft + 12 && px < squareLeft + side - 12 && py >= y + 12 && py < y + side - 12
                    let nearBorder = px < 12 || py < 12 || px >= Self.width - 12 || py >= Self.height - 12
                    if (!nearSquare || onSquare) && !nearBorder {
                        restCells += 1
                        if reliable { restPassed += 1 }
                    }
                }
            }
            // The densification blends the square's vector and the background's over an occlusion, and a blend can
            // come back consistently: most of the strip, not all of it, is caught.
            #expect(stripCells > 0 && Double(stripFailed) >= 0.75 * Double(stripCells),
                    "\(name) strip: \(stripFailed) of \(stripCells) cells unreliable")
            #expect(Double(restPassed) >= 0.99 * Double(restCells),
                    "elsewhere (\(name) check): \(restPassed) of \(restCells) cells reliable")
        }
    }

    static func squareMask(x: Int, y: Int, side: Int, width: Int = Self.width, height: Int = Self.height) -> Mask {
        Mask(width: width, height: height, values: (0..<(width * height)).map { i in
            (x..<(x + side)).contains(i % width) && (y..<(y + side)).contains(i / width) ? 255 : 0
        })
    }

    @Test("A mask warped by a translation's field is the mask translated; what comes from outside is unreliable")
    func warpsByATranslation() {
        let (w, h) = (40, 30)
        let mask = Self.squareMask(x: 3, y: 10, side: 12, width: w, height: h)
        // The field from the frame that gets the mask to the mask's frame: every pixel comes from 5 left, 3 down.
        let cells = 20 * 15
        let field = FlowField(width: w, height: h, step: 2, u: .init(repeating: -5, count: cells),
                              v: .init(repeating: 3, count: cells))
        let (warped, reliability) = field.warp(mask)
        #expect(warped == Self.squareMask(x: 8, y: 7, side: 12, width: w, height: h))
        for y in 0..<h {
            for x in 0..<w {
                let expected: UInt8 = x - 5 >= 0 && y + 3 < h ? 255 : 0
                #expect(reliability.values[y * w + x] == expected, "reliability at (\(x), \(y))")
            }
        }
        // Half a pixel: the mask's edge columns blend to 128 (127.5 rounded).
        let half = FlowField(width: w, height: h, step: 2, u: .init(repeating: 0.5, count: cells),
                             v: .init(repeating: 0, count: cells)).warp(mask).mask
        #expect(half.values[15 * w + 2] == 128 && half.values[15 * w + 14] == 128 && half.values[15 * w + 8] == 255,
                "\(half.values[(15 * w)..<(15 * w + 16)])")
    }

    @Test("A subject's mask follows the measured flow to the next frame")
    func warpsByAMeasuredFlow() throws {
        let (x, y, side) = (200, 100, 96)
        // The key frame has the square at x; in the next one it is 7 to the right and 4 up.
        let key = Self.frame { px, py in
            Int(px) >= x && Int(px) < x + side && Int(py) >= y && Int(py) < y + side
                ? Self.texture.sample(px - Double(x), py - Double(y)) : Self.background.sample(px, py)
        }
        let next = Self.frame { px, py in
            Int(px) >= x + 7 && Int(px) < x + 7 + side && Int(py) >= y - 4 && Int(py) < y - 4 + side
                ? Self.texture.sample(px - Double(x + 7), py - Double(y - 4)) : Self.background.sample(px, py)
        }
        let toKey = try OpticalFlow.between(next, key), fromKey = try OpticalFlow.between(key, next)
        let mask = Self.squareMask(x: x, y: y, side: side), truth = Self.squareMask(x: x + 7, y: y - 4, side: side)
        let carried = toKey.warp(mask).mask
        let iou = carried.intersectionOverUnion(truth), unmoved = mask.intersectionOverUnion(truth)
        // What the square uncovers has no source in the key frame: the flow there is a guess, which the
        // forward-backward check marks; elsewhere the carried mask is the moved one.
        #expect(iou > 0.9, "IoU with the moved square \(iou) (the unmoved mask's: \(unmoved))")
        let (checked, reliability) = toKey.checked(against: fromKey).warp(mask)
        var wrong = 0, reliable = 0
        for i in 0..<truth.values.count where reliability.values[i] == 255 {
            reliable += 1
            if (checked.values[i] >= 128) != (truth.values[i] >= 128) { wrong += 1 }
        }
        #expect(reliable > truth.values.count * 9 / 10 && wrong * 300 < reliable,
                "\(wrong) of \(reliable) reliable pixels wrong (of \(truth.values.count))")
    }

    @Test("The C side refuses bad sizes, short buffers and fields of different frames")
    func argumentChecks() throws {
        var p = ck_flow_params()
        ck_flow_default_params(&p)
        let frame = [UInt8](repeating: 128, count: 64 * 48)
        var u = [Float](repeating: 0, count: 32 * 24), v = u
        func flow(_ width: Int, _ height: Int, count: Int = 64 * 48, capacity: Int = 32 * 24) -> Int32 {
            frame.withUnsafeBufferPointer { f in
                u.withUnsafeMutableBufferPointer { u in
                    v.withUnsafeMutableBufferPointer { v in
                        ck_flow(f.baseAddress, f.baseAddress, count, width, height, &p, u.baseAddress, v.baseAddress,
                                capacity)
                    }
                }
            }
        }
        #expect(flow(64, 48) == CK_FLOW_OK)
        // With the caller's scratch: too small or misaligned is refused, never written past.
        var bytes = 0
        #expect(ck_flow_scratch_size(64, 48, &p, &bytes) == CK_FLOW_OK && bytes > 0, "\(bytes)")
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes + 64, alignment: 64)
        defer { block.deallocate() }
        func flow(scratch: UnsafeMutableRawPointer, bytes: Int) -> Int32 {
            frame.withUnsafeBufferPointer { f in
                u.withUnsafeMutableBufferPointer { u in
                    v.withUnsafeMutableBufferPointer { v in
                        ck_flow_with_scratch(f.baseAddress, f.baseAddress, f.count, 64, 48, &p, u.baseAddress,
                                             v.baseAddress, u.count, scratch, bytes)
                    }
                }
            }
        }
        #expect(flow(scratch: block.baseAddress!, bytes: bytes) == CK_FLOW_OK)
        #expect(flow(scratch: block.baseAddress!, bytes: bytes - 1) == CK_FLOW_ECAPACITY)
        #expect(flow(scratch: block.baseAddress! + 4, bytes: bytes) == CK_FLOW_EINVAL)
        #expect(flow(64, 48, capacity: 32 * 24 - 1) == CK_FLOW_ECAPACITY)
        #expect(flow(64, 48, count: 64 * 48 - 1) == CK_FLOW_ECAPACITY)
        #expect(flow(0, 48) == CK_FLOW_EINVAL && flow(64, -1) == CK_FLOW_EINVAL && flow(64, 48, count: 0) == CK_FLOW_EINVAL)
        // 14 pixels high is 7 at half size: no room for an 8-pixel patch. Sides over the limit are refused before
        // anything is multiplied.
        #expect(flow(64, 14) == CK_FLOW_ESIZE && flow(Int(CK_FLOW_MAX_SIDE) + 1, 2) == CK_FLOW_ESIZE
                && flow(Int.max, Int.max) == CK_FLOW_ESIZE)
        p.patch = 7
        #expect(flow(64, 48) == CK_FLOW_EINVAL)
        ck_flow_default_params(&p)
        p.stride = 0
        #expect(flow(64, 48) == CK_FLOW_EINVAL)
        ck_flow_default_params(&p)
        p.finest = Int(CK_FLOW_MAX_LEVELS)
        #expect(flow(64, 48) == CK_FLOW_EINVAL)
        ck_flow_default_params(&p)
        var (columns, rows) = (0, 0)
        #expect(ck_flow_field_size(65, 47, &p, &columns, &rows) == CK_FLOW_OK && columns == 33 && rows == 24)

        // Fields: a 64 x 48 frame at step 2 against a 64 x 50 one.
        let cells = [Float](repeating: 0, count: 32 * 25)
        var out = [Float](repeating: 0, count: 32 * 25), out2 = out, out3 = out
        func field(_ width: Int, _ height: Int, _ step: Int, count: Int, _ body: (inout ck_flow_field) -> Int32) -> Int32 {
            cells.withUnsafeBufferPointer { c in
                var f = ck_flow_field(width: width, height: height, step: step, count: count, u: c.baseAddress,
                                      v: c.baseAddress, r: c.baseAddress)
                return body(&f)
            }
        }
        func compose(_ a: inout ck_flow_field, _ b: inout ck_flow_field, capacity: Int) -> Int32 {
            out.withUnsafeMutableBufferPointer { o in
                out2.withUnsafeMutableBufferPointer { o2 in
                    out3.withUnsafeMutableBufferPointer { o3 in
                        ck_flow_compose(&a, &b, o.baseAddress, o2.baseAddress, o3.baseAddress, capacity)
                    }
                }
            }
        }
        let composed = field(64, 48, 2, count: 32 * 24) { a in
            field(64, 48, 4, count: 16 * 12) { b in compose(&a, &b, capacity: 32 * 24) }
        }
        #expect(composed == CK_FLOW_OK)
        #expect(field(64, 48, 2, count: 32 * 24) { a in field(64, 50, 2, count: 32 * 25) { b in compose(&a, &b, capacity: 800) } }
                == CK_FLOW_EMISMATCH)
        #expect(field(64, 48, 2, count: 32 * 24) { a in field(64, 48, 2, count: 32 * 24) { b in compose(&a, &b, capacity: 767) } }
                == CK_FLOW_ECAPACITY)
        #expect(field(64, 48, 2, count: 32 * 23) { a in field(64, 48, 2, count: 32 * 24) { b in compose(&a, &b, capacity: 800) } }
                == CK_FLOW_ECAPACITY)
        #expect(field(0, 48, 2, count: 32 * 24) { a in field(64, 48, 2, count: 32 * 24) { b in compose(&a, &b, capacity: 800) } }
                == CK_FLOW_EINVAL)
        #expect(field(64, 48, 2, count: 32 * 24) { a in field(64, 48, 0, count: 32 * 24) { b in compose(&a, &b, capacity: 800) } }
                == CK_FLOW_EINVAL)
        let checked = field(64, 48, 2, count: 32 * 24) { a in
            field(64, 47, 2, count: 32 * 24) { b in
                out.withUnsafeMutableBufferPointer { ck_flow_check(&a, &b, 0.01, 0.5, $0.baseAddress, 800) }
            }
        }
        #expect(checked == CK_FLOW_EMISMATCH)
        let mask = [UInt8](repeating: 255, count: 64 * 48)
        var warped = [UInt8](repeating: 0, count: 64 * 48), trust = warped
        func warp(count: Int, capacity: Int) -> Int32 {
            field(64, 48, 2, count: 32 * 24) { f in
                mask.withUnsafeBufferPointer { m in
                    warped.withUnsafeMutableBufferPointer { w in
                        trust.withUnsafeMutableBufferPointer { t in
                            ck_flow_warp(&f, m.baseAddress, count, w.baseAddress, t.baseAddress, capacity)
                        }
                    }
                }
            }
        }
        #expect(warp(count: 64 * 48, capacity: 64 * 48) == CK_FLOW_OK)
        #expect(warp(count: 64 * 48 - 1, capacity: 64 * 48) == CK_FLOW_ECAPACITY)
        #expect(warp(count: 64 * 48, capacity: 64 * 48 - 1) == CK_FLOW_ECAPACITY)
        #expect(warp(count: 0, capacity: 64 * 48) == CK_FLOW_EINVAL)

        // Through Swift: a frame too small for a patch at half size is an error, not a crash.
        let tiny = Self.frame(width: 12, height: 40) { x, _ in Float(x) * 10 }
        #expect(throws: ImagingError.self) { try OpticalFlow.between(tiny, tiny) }
        #expect(try OpticalFlow.between(tiny, tiny, step: 1).columns == 12)
    }
}
