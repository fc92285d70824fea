import CKernels
import COpenBLAS
import Foundation
import Inference

/// `photobench gemm [--rounds N]`: the inference engine's matrix product (`ck_gemm`) against OpenBLAS's SGEMM
/// (one thread, beta 0) on the shapes of U²-Netp's Winograd products at 320x320: per band, 64 products of
/// `k x c` weights by `c x 56` transformed tiles (F(6x6, 3x3): 54 tiles a row, padded to 56), the tiles written afresh before every band as the input
/// transform writes them (so they come from cache as in a pass, not from a loop that keeps them in L1). Prints
/// GFLOP/s per shape, the best of the rounds.
enum GemmBench {
    static let shapes = [(64, 3), (16, 64), (16, 16), (16, 32), (64, 32), (64, 64), (64, 128)]

    static func run(_ args: [String]) throws {
        var rounds = 5
        if let i = args.firstIndex(of: "--rounds"), i + 1 < args.count, let n = Int(args[i + 1]) { rounds = n }
        openblas_set_num_threads(1)
        let tiles = 56, bands = 54, positions = 64
        let core = String(cString: openblas_get_corename())
        print("\(positions) products a band, \(tiles) tiles, \(bands) bands; kernels \(KernelLevel.current.name), OpenBLAS \(core)")
        for (k, c) in shapes {
            let u = (0..<positions * k * c).map { Float($0 % 7) * 0.1 - 0.3 }
            var packed = [Float](repeating: 0, count: positions * ck_gemm_packed_count(k, c))
            let stride = ck_gemm_packed_count(k, c)
            packed.withUnsafeMutableBufferPointer { p in
                u.withUnsafeBufferPointer { u in
                    for position in 0..<positions {
                        ck_gemm_pack(k, c, u.baseAddress! + position * k * c, c, p.baseAddress! + position * stride)
                    }
                }
            }
            var v = [Float](repeating: 0, count: positions * c * tiles)
            var m = [Float](repeating: 0, count: positions * k * tiles)
            func time(_ product: (UnsafePointer<Float>, UnsafeMutablePointer<Float>) -> Void) -> Double {
                var best = Double.infinity
                for _ in 0..<rounds {
                    var total = 0.0
                    for band in 0..<bands {
                        for i in v.indices { v[i] = Float((i + band) % 5) * 0.1 }
                        let start = ContinuousClock.now
                        v.withUnsafeBufferPointer { vb in
                            m.withUnsafeMutableBufferPointer { product(vb.baseAddress!, $0.baseAddress!) }
                        }
                        let d = ContinuousClock.now - start
                        total += Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
                    }
                    best = min(best, total)
                }
                return 2.0 * Double(positions * k * c * tiles * bands) / best / 1e9
            }
            let ours = time { v, m in
                packed.withUnsafeBufferPointer { a in
                    for p in 0..<positions {
                        ck_gemm(k, tiles, c, a.baseAddress! + p * stride, Int(CK_GEMM_ROWS) * c, v + p * c * tiles,
                                tiles, m + p * k * tiles, tiles, 0)
                    }
                }
            }
            let blas = time { v, m in
                u.withUnsafeBufferPointer { a in
                    for p in 0..<positions {
                        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(k), Int32(tiles), Int32(c), 1,
                                    a.baseAddress! + p * k * c, Int32(c), v + p * c * tiles, Int32(tiles), 0,
                                    m + p * k * tiles, Int32(tiles))
                    }
                }
            }
            print(String(format: "  %3d x %3d: ck_gemm %5.1f GFLOP/s, OpenBLAS %5.1f GFLOP/s (%.2fx)", k, c, ours, blas,
                         ours / blas))
        }
    }
}
