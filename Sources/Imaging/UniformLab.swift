import Foundation

/// A warp of CIELAB in which Euclidean distance approximates CIEDE2000 locally, so plain
/// (weighted) k-means and Weiszfeld steps optimise something close to the palette metric.
///
/// It folds in CIEDE2000's per-colour factors: the neutral-axis stretch of a* (1 + G), the
/// chroma compression 1 / S_C (integrated: C' = ln(1 + 0.045 C) / 0.045, which also scales hue
/// arcs by about 1 / S_H), and the lightness compression 1 / S_L away from L = 50 (integrated
/// numerically). The pairwise terms (R_T, hue-dependent T) are left to the final refinement that
/// uses CIEDE2000 itself.
enum UniformLab {
    private static let lMin = -10.0, lStep = 0.05
    /// L' at lMin + i * lStep, with L'(50) = 0.
    private static let lTable: [Double] = {
        let n = Int(120 / lStep) + 1
        var t = [Double](repeating: 0, count: n)
        for i in 1..<n {
            let l0 = lMin + Double(i - 1) * lStep, l1 = l0 + lStep
            t[i] = t[i - 1] + lStep / 2 * (1 / sL(l0) + 1 / sL(l1))
        }
        let mid = t[Int((50 - lMin) / lStep)]
        return t.map { $0 - mid }
    }()

    private static func sL(_ l: Double) -> Double {
        let d = (l - 50) * (l - 50)
        return 1 + 0.015 * d / (20 + d).squareRoot()
    }

    private static func g(_ c: Double) -> Double {
        let c2 = c * c, c7 = c2 * c2 * c2 * c
        return 0.5 * (1 - (c7 / (c7 + 6_103_515_625)).squareRoot())
    }

    private static func warpL(_ l: Double) -> Double {
        let x = min(max((l - lMin) / lStep, 0), Double(lTable.count - 1) - 1e-9)
        let i = Int(x)
        return lTable[i] + (lTable[i + 1] - lTable[i]) * (x - Double(i))
    }

    static func forward(_ p: SIMD4<Double>) -> SIMD4<Double> {
        let ap = p.y * (1 + g((p.y * p.y + p.z * p.z).squareRoot()))
        let cp = (ap * ap + p.z * p.z).squareRoot()
        let s = cp > 1e-12 ? log1p(0.045 * cp) / 0.045 / cp : 1
        return SIMD4(warpL(p.x), ap * s, p.z * s, 0)
    }

    static func inverse(_ q: SIMD4<Double>) -> SIMD4<Double> {
        let cq = (q.y * q.y + q.z * q.z).squareRoot()
        let s = cq > 1e-12 ? expm1(0.045 * cq) / 0.045 / cq : 1
        let ap = q.y * s, b = q.z * s
        var a = ap / 1.5
        for _ in 0..<12 { a = ap / (1 + g((a * a + b * b).squareRoot())) }
        // Newton on the monotone L warp (derivative 1 / S_L).
        var l = 50 + q.x
        for _ in 0..<8 { l -= (warpL(l) - q.x) * sL(l) }
        return SIMD4(l, a, b, 0)
    }
}
