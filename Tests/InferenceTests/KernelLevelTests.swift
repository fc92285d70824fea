import Compute
@testable import Inference
import Testing

/// The C kernels' variants (one per instruction set) compute the same floats, the pooling kernel follows
/// its definition on the odd sizes the network's deepest levels have, and the residual sum its own, written over
/// either input as the activation plan does.
/// Serialized: the level is process-wide, and a test comparing levels must not have it switched mid-pass.
@Suite(.serialized, .timeLimit(.minutes(10))) struct KernelLevelTests {
    /// A whole pass at 128x128 (Winograd at 128 and 64 with enlarged parts folded in, im2col below, every
    /// pooling and resize) at every level this CPU has, bit for bit.
    @Test(.enabled(if: KernelLevel.supported != .baseline, "this CPU has only the baseline kernels"))
    func everyLevelComputesTheSameMap() throws {
        let network = try Network.u2netp.get().resized(toHeight: 128, width: 128)
        let input = Tensor(channels: 3, height: 128, width: 128,
                           data: ConvolutionTests.values(3 * 128 * 128, seed: 5).map { 2 * $0 })
        defer { KernelLevel.use(.supported) }
        let levels = KernelLevel.allCases.filter { $0.rawValue <= KernelLevel.supported.rawValue }
        var maps: [(KernelLevel, [Float])] = []
        for level in levels {
            #expect(KernelLevel.use(level) == level)
            maps.append((level, try network.forward(input, parallel: InTurnLoop()).data))
        }
        let (_, reference) = maps[0]
        for (level, map) in maps.dropFirst() {
            let differing = zip(map, reference).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(differing == 0, "\(level): \(differing) of \(map.count) values differ from the baseline's; worst \(ConvolutionTests.worstDifference(map, reference))")
        }
    }

    /// The definition: each output is the largest of the (up to) four inputs of its 2x2 window.
    @Test(arguments: [(1, 1), (3, 5), (4, 4), (7, 33), (10, 9)], KernelLevel.allCases)
    func poolingFollowsItsDefinition(size: (Int, Int), level: KernelLevel) {
        let (h, w) = size, oh = (h + 1) / 2, ow = (w + 1) / 2
        var input = ConvolutionTests.values(2 * h * w, seed: UInt64(h * 31 + w))
        var output = [Float](repeating: .nan, count: 2 * oh * ow)
        defer { KernelLevel.use(.supported) }
        KernelLevel.use(level)
        input.withUnsafeMutableBufferPointer { i in
            output.withUnsafeMutableBufferPointer { o in
                Pooling.maxPool2x2(TensorView(shape: TensorShape(channels: 2, height: h, width: w), base: i.baseAddress!),
                                   into: TensorView(shape: TensorShape(channels: 2, height: oh, width: ow), base: o.baseAddress!))
            }
        }
        var wrong: [String] = []
        for c in 0..<2 {
            for y in 0..<oh {
                for x in 0..<ow {
                    let window = [(2 * y, 2 * x), (2 * y, 2 * x + 1), (2 * y + 1, 2 * x), (2 * y + 1, 2 * x + 1)]
                        .filter { $0.0 < h && $0.1 < w }.map { input[(c * h + $0.0) * w + $0.1] }
                    let got = output[(c * oh + y) * ow + x]
                    if got != window.max()! { wrong.append("(\(c), \(y), \(x)): \(got), expected \(window.max()!)") }
                }
            }
        }
        #expect(wrong.isEmpty, "\(h)x\(w) at \(level): \(wrong.prefix(5))")
    }

    /// Sums of counts around a vector's sixteen (the tail runs one at a time), into a third buffer and over each
    /// input.
    @Test(arguments: [1, 15, 16, 17, 40], KernelLevel.allCases)
    func theResidualSumFollowsItsDefinition(count: Int, level: KernelLevel) {
        let a = ConvolutionTests.values(count, seed: UInt64(count)), b = ConvolutionTests.values(count, seed: 99)
        let expected = zip(a, b).map { $0 + $1 }
        defer { KernelLevel.use(.supported) }
        KernelLevel.use(level)
        func sum(_ x: TensorView, _ y: TensorView, _ out: TensorView) { Elementwise.add(x, y, into: out) }
        let shape = TensorShape(channels: 1, height: 1, width: count)
        var (x, y, out) = (a, b, [Float](repeating: .nan, count: count))
        x.withUnsafeMutableBufferPointer { x in
            y.withUnsafeMutableBufferPointer { y in
                out.withUnsafeMutableBufferPointer { o in
                    sum(TensorView(shape: shape, base: x.baseAddress!), TensorView(shape: shape, base: y.baseAddress!),
                        TensorView(shape: shape, base: o.baseAddress!))
                }
            }
        }
        var overA = a, overB = b
        overA.withUnsafeMutableBufferPointer { x in
            y.withUnsafeMutableBufferPointer { y in
                let view = TensorView(shape: shape, base: x.baseAddress!)
                sum(view, TensorView(shape: shape, base: y.baseAddress!), view)
            }
        }
        x.withUnsafeMutableBufferPointer { x in
            overB.withUnsafeMutableBufferPointer { y in
                let view = TensorView(shape: shape, base: y.baseAddress!)
                sum(TensorView(shape: shape, base: x.baseAddress!), view, view)
            }
        }
        #expect(out == expected && overA == expected && overB == expected,
                "\(count) at \(level): \(out) / \(overA) / \(overB), expected \(expected)")
    }
}
