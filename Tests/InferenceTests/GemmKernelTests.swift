import CKernels
@testable import Inference
import Testing

/// `ck_gemm` against its definition, bit for bit: every element summed from zero in the order of the depth, a
/// product rounded then added, at every level, on shapes that leave partial blocks of rows, partial strips of
/// sixteen and eight columns and single columns. Serialized: the level is process-wide.
@Suite(.serialized, .timeLimit(.minutes(10))) struct GemmKernelTests {
    /// The definition, in Swift (which does not fuse a product and a sum).
    static func reference(_ a: [Float], _ b: [Float], _ c: [Float], m: Int, n: Int, depth: Int, columns p0: Int,
                          aDepth: Int, accumulate: Bool) -> [Float] {
        var out = c
        for i in 0..<m {
            for j in 0..<n {
                var sum: Float = 0
                for p in 0..<depth { sum = sum + a[i * aDepth + p0 + p] * b[p * n + j] }
                out[i * n + j] = accumulate ? c[i * n + j] + sum : sum
            }
        }
        return out
    }

    @Test(arguments: KernelLevel.allCases)
    func theProductFollowsItsDefinition(level: KernelLevel) {
        defer { KernelLevel.use(.supported) }
        KernelLevel.use(level)
        var failures: [String] = []
        for (m, n, depth) in [(1, 1, 1), (5, 7, 3), (6, 16, 4), (7, 24, 9), (13, 40, 16), (16, 17, 33), (25, 32, 7), (2, 8, 1)] {
            for accumulate in [false, true] {
                // A has two more columns than the product reads, so the columns read are a range inside it.
                let aDepth = depth + 2, p0 = 1
                let a = ConvolutionTests.values(m * aDepth, seed: UInt64(m * 7 + depth))
                let b = ConvolutionTests.values(depth * n, seed: UInt64(n * 13 + depth))
                let c = ConvolutionTests.values(m * n, seed: UInt64(m + n))
                var packed = [Float](repeating: .nan, count: ck_gemm_packed_count(m, aDepth))
                packed.withUnsafeMutableBufferPointer { ck_gemm_pack(m, aDepth, a, aDepth, $0.baseAddress) }
                var out = c
                let rows = Int(CK_GEMM_ROWS)
                packed.withUnsafeBufferPointer { packed in
                    ck_gemm(m, n, depth, packed.baseAddress! + rows * p0, rows * aDepth, b, n, &out, n,
                            accumulate ? 1 : 0)
                }
                let expected = Self.reference(a, b, c, m: m, n: n, depth: depth, columns: p0, aDepth: aDepth,
                                              accumulate: accumulate)
                let differing = zip(out, expected).filter { $0.bitPattern != $1.bitPattern }.count
                if differing > 0 {
                    let worst = ConvolutionTests.worstDifference(out, expected)
                    failures.append("\(m)x\(n), depth \(depth), accumulate \(accumulate): \(differing) differ, worst \(worst)")
                }
            }
        }
        #expect(failures.isEmpty, "\(level): \(failures)")
    }
}
