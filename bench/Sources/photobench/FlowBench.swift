import Foundation
import Imaging

/// `photobench flow [--iterations N]` (default 20)
///
/// Optical flow (`OpticalFlow.between`) on frames made from corpus photos (and a value-noise texture) by known
/// motions, rendered here by bilinear sampling of a copy 1.375 times the frame's size: a subpixel translation
/// (2.5, -1.25), a 1.04 zoom and a 2 degree rotation about the centre, a 12 px translation. Per frame size and step:
/// the mean endpoint error 16 px inside the frame per motion, and the time of one flow (best of N, wall and this
/// thread's CPU time, which a busy machine inflates less), then the time of composing, checking and warping a mask.
enum FlowBench {
    struct Motion {
        let name: String
        let a, b, c, d, tx, ty: Double
        static let all = [
            Motion(name: "translate (2.5, -1.25)", a: 1, b: 0, c: 0, d: 1, tx: 2.5, ty: -1.25),
            Motion(name: "zoom 1.04", a: 1.04, b: 0, c: 0, d: 1.04, tx: 0, ty: 0),
            Motion(name: "rotate 2°", a: cos(.pi / 90), b: -sin(.pi / 90), c: sin(.pi / 90), d: cos(.pi / 90), tx: 0, ty: 0),
            Motion(name: "translate (12, 0)", a: 1, b: 0, c: 0, d: 1, tx: 12, ty: 0),
        ]
    }

    /// A grey plane sampled bilinearly, clamped.
    struct Plane {
        let width: Int, height: Int, values: [Float]
        func sample(_ x: Double, _ y: Double) -> Float {
            let gx = min(max(x, 0), Double(width - 1)), gy = min(max(y, 0), Double(height - 1))
            let (x0, y0) = (Int(gx), Int(gy)), (x1, y1) = (min(Int(gx) + 1, width - 1), min(Int(gy) + 1, height - 1))
            let (fx, fy) = (Float(gx - Double(x0)), Float(gy - Double(y0)))
            let top = values[y0 * width + x0] + (values[y0 * width + x1] - values[y0 * width + x0]) * fx
            let bottom = values[y1 * width + x0] + (values[y1 * width + x1] - values[y1 * width + x0]) * fx
            return top + (bottom - top) * fy
        }
    }

    static func run(_ args: [String]) throws {
        var iterations = 20
        if let i = args.firstIndex(of: "--iterations"), i + 1 < args.count, let n = Int(args[i + 1]) { iterations = max(1, n) }
        let sources = try ["car-1.jpg", "coffee.png", "girl-2.jpg", "animal-2.jpg"].map { ($0, try photo($0)) }
            + [("value noise", noise())]
        print("flow: mean endpoint error (px) per motion; one flow best of \(iterations), wall / thread CPU")
        for (width, height) in [(512, 288), (256, 144)] {
            for step in [2, 1, 4] where !(width == 256 && step != 2) {
                print("  \(width)x\(height) step \(step)")
                var walls: [Double] = [], cpus: [Double] = []
                for (name, plane) in sources {
                    var errors: [String] = []
                    for motion in Motion.all {
                        let (a, b) = frames(plane, motion, width: width, height: height)
                        let flow = try OpticalFlow.between(a, b, step: step)
                        errors.append(String(format: "%.3f", endpointError(flow, motion)))
                        if motion.name == Motion.all[0].name {
                            walls.append(try DecodeBench.best(iterations) { _ = try OpticalFlow.between(a, b, step: step) })
                            cpus.append(try bestCPU(iterations) { _ = try OpticalFlow.between(a, b, step: step) })
                        }
                    }
                    print(String(format: "    %-12@ %@", name as NSString, errors.joined(separator: "  ") as NSString))
                }
                print(String(format: "    one flow: %.2f ms wall, %.2f ms CPU (best over the sources)",
                             walls.min()! * 1000, cpus.min()! * 1000))
            }
        }
        // The field operations at the size a clip's frames are carried at.
        let (a, b) = frames(sources[0].1, Motion.all[0], width: 512, height: 288)
        let forward = try OpticalFlow.between(a, b), backward = try OpticalFlow.between(b, a)
        let mask = Mask(width: 512, height: 288, values: (0..<(512 * 288)).map { ($0 % 512) / 128 % 2 == 0 ? 255 : 0 })
        let compose = try bestCPU(iterations) { _ = forward.composed(with: backward) }
        let check = try bestCPU(iterations) { _ = forward.checked(against: backward) }
        let warp = try bestCPU(iterations) { _ = forward.warp(mask) }
        print(String(format: "  512x288 step 2 fields: compose %.3f ms, check %.3f ms, warp a mask %.3f ms (CPU)",
                     compose * 1000, check * 1000, warp * 1000))
    }

    /// The least CPU time of this thread over `n` runs of `body`.
    static func bestCPU(_ n: Int, _ body: () throws -> Void) throws -> Double {
        func now() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        }
        try body()
        var best = Double.infinity
        for _ in 0..<n {
            let start = now()
            try body()
            best = min(best, now() - start)
        }
        return best
    }

    /// A corpus photo's luma, scaled to cover 704 x 396 (the largest frame and its margin) and cropped to it.
    static func photo(_ name: String) throws -> Plane {
        let data = try Data(contentsOf: DecodeBench.corpus.appendingPathComponent(name))
        let image = try ImageCodec.decode([UInt8](data), on: .inTurn).image
        let scale = max(704 / Double(image.width), 396 / Double(image.height))
        let (sw, sh) = (Int((704 / scale).rounded(.down)), Int((396 / scale).rounded(.down)))
        let small = try Resampler.resize(image, sourceX: (image.width - sw) / 2, sourceY: (image.height - sh) / 2,
                                         sourceWidth: sw, sourceHeight: sh, width: 704, height: 396, on: .inTurn)
        let p = small.pixels
        let values = (0..<(704 * 396)).map { i in
            Float((Int(p[4 * i]) * 77 + Int(p[4 * i + 1]) * 150 + Int(p[4 * i + 2]) * 29 + 128) >> 8)
        }
        return Plane(width: 704, height: 396, values: values)
    }

    /// Five octaves of value noise (periods 3 to 48 px), 704 x 396.
    static func noise() -> Plane {
        var random = SplitMix64(seed: 11)
        var sum = [Float](repeating: 0, count: 704 * 396)
        for (period, amplitude) in [(3, Float(0.6)), (6, 1), (12, 1), (24, 0.8), (48, 0.6)] {
            let (gw, gh) = (704 / period + 2, 396 / period + 2)
            let lattice = (0..<(gw * gh)).map { _ in Float(random.nextUnit()) }
            for y in 0..<396 {
                let ty = Float(y % period) / Float(period), sy = ty * ty * (3 - 2 * ty)
                for x in 0..<704 {
                    let tx = Float(x % period) / Float(period), sx = tx * tx * (3 - 2 * tx)
                    let i = (y / period) * gw + x / period
                    let top = lattice[i] + (lattice[i + 1] - lattice[i]) * sx
                    let bottom = lattice[i + gw] + (lattice[i + gw + 1] - lattice[i + gw]) * sx
                    sum[y * 704 + x] += amplitude * (top + (bottom - top) * sy)
                }
            }
        }
        return Plane(width: 704, height: 396, values: sum.map { min(max((($0 / 4) - 0.5) * 2.2 + 0.5, 0), 1) * 255 })
    }

    /// The first frame (the middle of `plane`) and the second (it moved by `motion` about the frame's centre).
    static func frames(_ plane: Plane, _ m: Motion, width: Int, height: Int) -> (LumaPlane, LumaPlane) {
        let (ox, oy) = (Double(plane.width - width) / 2, Double(plane.height - height) / 2)
        let (cx, cy) = (Double(width - 1) / 2, Double(height - 1) / 2)
        func frame(_ at: (Double, Double) -> (Double, Double)) -> LumaPlane {
            var rgb = [UInt8](repeating: 0, count: width * height * 3)
            for y in 0..<height {
                for x in 0..<width {
                    let (sx, sy) = at(Double(x), Double(y))
                    let v = UInt8(plane.sample(sx + ox, sy + oy).rounded())
                    (rgb[3 * (y * width + x)], rgb[3 * (y * width + x) + 1], rgb[3 * (y * width + x) + 2]) = (v, v, v)
                }
            }
            return rgb.withUnsafeBufferPointer { LumaPlane(pixels: $0, channels: 3, width: width, height: height) }
        }
        let det = m.a * m.d - m.b * m.c
        return (frame { ($0, $1) }, frame { x, y in
            let (qx, qy) = (x - cx - m.tx, y - cy - m.ty)
            return ((m.d * qx - m.b * qy) / det + cx, (-m.c * qx + m.a * qy) / det + cy)
        })
    }

    static func endpointError(_ flow: FlowField, _ m: Motion) -> Double {
        let (cx, cy) = (Double(flow.width - 1) / 2, Double(flow.height - 1) / 2)
        var sum = 0.0, count = 0
        for y in 16..<(flow.height - 16) {
            for x in 16..<(flow.width - 16) {
                let f = flow.vector(atX: Double(x), y: Double(y))
                let (dx, dy) = (Double(x) - cx, Double(y) - cy)
                let tu = m.a * dx + m.b * dy + cx + m.tx - Double(x), tv = m.c * dx + m.d * dy + cy + m.ty - Double(y)
                sum += ((f.dx - tu) * (f.dx - tu) + (f.dy - tv) * (f.dy - tv)).squareRoot()
                count += 1
            }
        }
        return sum / Double(count)
    }
}
