@testable import Compute
@testable import Inference
import Synchronization
import Testing

/// The convolution paths (Winograd F(6x6, 3x3), banded im2col, 1x1) against a direct
/// seven-loop convolution, on shapes the network never has: odd sizes, maps smaller than a
/// dilated tile, every dilation it uses.
@Suite(.timeLimit(.minutes(10)))
struct ConvolutionTests {
    /// Deterministic values in [-1, 1).
    static func values(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 23) - 1
        }
    }

    static func convolution(in cin: Int, out cout: Int, kernel: Int, dilation: Int, relu: Bool, seed: UInt64) -> Convolution {
        Convolution(inChannels: cin, outChannels: cout, kernel: kernel, dilation: dilation, relu: relu,
                    weights: filters(in: cin, out: cout, kernel: kernel, seed: seed), bias: values(cout, seed: seed + 1))
    }

    /// The filters `convolution(...)` gives a convolution of that shape and seed (it keeps them only packed).
    static func filters(in cin: Int, out cout: Int, kernel: Int, seed: UInt64) -> [Float] {
        values(cout * cin * kernel * kernel, seed: seed)
    }

    /// The filters of `conv`, made by `convolution(...)` with `seed`.
    static func filters(of conv: Convolution, seed: UInt64) -> [Float] {
        filters(in: conv.inChannels, out: conv.outChannels, kernel: conv.kernel, seed: seed)
    }

    /// The definition: out[k][y][x] = bias[k] + Σ w[k][c][ky][kx] · in[c][y + (ky - r)d][x + (kx - r)d], with
    /// `weights` as ONNX lays them out.
    static func direct(_ conv: Convolution, _ weights: [Float], _ x: Tensor) -> [Float] {
        let h = x.height, w = x.width, n = conv.kernel, r = n / 2, d = conv.dilation
        var out = [Float](repeating: 0, count: conv.outChannels * h * w)
        for k in 0..<conv.outChannels {
            for y in 0..<h {
                for xx in 0..<w {
                    var sum = conv.bias[k]
                    for c in 0..<conv.inChannels {
                        for ky in 0..<n {
                            for kx in 0..<n {
                                let sy = y + (ky - r) * d, sx = xx + (kx - r) * d
                                guard sy >= 0 && sy < h && sx >= 0 && sx < w else { continue }
                                sum += weights[((k * conv.inChannels + c) * n + ky) * n + kx] * x.data[(c * h + sy) * w + sx]
                            }
                        }
                    }
                    out[(k * h + y) * w + xx] = conv.relu ? max(0, sum) : sum
                }
            }
        }
        return out
    }

    static func worstDifference(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    static let sizes = [(1, 1), (2, 3), (5, 4), (7, 9), (10, 10), (21, 13), (17, 32)]

    /// Sizes that leave partial tiles, partial groups of eight tiles, and more than eight.
    static let winogradSizes = [(1, 1), (2, 3), (5, 4), (7, 9), (10, 10), (21, 13), (17, 32), (9, 70), (13, 100)]

    /// Channels in and out: fewer outputs than one block of `ck_gemm`'s rows, and two blocks and one more.
    @Test(arguments: [(5, 3), (4, 13)])
    func winogradMatchesTheDirectConvolution(channels: (Int, Int)) throws {
        let (cin, cout) = channels
        for (h, w) in Self.winogradSizes {
            for relu in [false, true] {
                let seed = UInt64(h * w)
                let conv = Self.convolution(in: cin, out: cout, kernel: 3, dilation: 1, relu: relu, seed: seed)
                let x = Tensor(channels: cin, height: h, width: w, data: Self.values(cin * h * w, seed: UInt64(h + w)))
                let winograd = try #require(conv.winograd)
                var workspace = ConvolutionWorkspace()
                let out = try Tensor(channels: cout, height: h, width: w) { dst in
                    try Convolution.withPlanes(of: [x]) { planes in
                        try winograd.apply(planes, height: h, width: w, into: dst, workspace: &workspace, on: .inTurn)
                    }
                }
                // F(6x6, 3x3)'s transforms scale values by up to 32 (Aᵀ) and 5.25 (Bᵀ): a few ulps of
                // outputs up to ~5 here (a wrong coefficient is off by the order of the output).
                let worst = Self.worstDifference(out.data, Self.direct(conv, Self.filters(of: conv, seed: seed), x))
                #expect(worst < 1e-4, "\(cin) -> \(cout) channels, \(h)x\(w), relu \(relu): \(worst)")
            }
        }
    }

    /// A part enlarged as the convolution reads it gives exactly what the enlarged tensor, stored, gives: the
    /// same rows by the same arithmetic (2x as in U²-Netp's decoders, and an uneven ratio), on every band size.
    @Test(arguments: [(40, 35, 80, 70), (33, 50, 70, 96)])
    func anEnlargedPartConvolvesAsTheStoredEnlargement(sizes: (Int, Int, Int, Int)) throws {
        let (sh, sw, h, w) = sizes
        let small = Tensor(channels: 3, height: sh, width: sw, data: Self.values(3 * sh * sw, seed: 21))
        let other = Tensor(channels: 2, height: h, width: w, data: Self.values(2 * h * w, seed: 23))
        let conv = Self.convolution(in: 5, out: 4, kernel: 3, dilation: 1, relu: true, seed: 29)
        #expect(conv.runsWinograd(onPixels: h * w))
        var smallData = small.data, otherData = other.data
        var enlarged = [Float](repeating: 0, count: 3 * h * w)
        var stored = [Float](repeating: 0, count: 4 * h * w), folded = stored
        var workspace = ConvolutionWorkspace()
        try smallData.withUnsafeMutableBufferPointer { s in
            try otherData.withUnsafeMutableBufferPointer { o in
                try enlarged.withUnsafeMutableBufferPointer { e in
                    let smallView = TensorView(shape: TensorShape(channels: 3, height: sh, width: sw), base: s.baseAddress!)
                    let otherView = TensorView(shape: TensorShape(channels: 2, height: h, width: w), base: o.baseAddress!)
                    let enlargedView = TensorView(shape: TensorShape(channels: 3, height: h, width: w), base: e.baseAddress!)
                    BilinearResize.resize(smallView, into: enlargedView)
                    try stored.withUnsafeMutableBufferPointer { out in
                        try conv.apply([.stored(enlargedView), .stored(otherView)],
                                       into: TensorView(shape: TensorShape(channels: 4, height: h, width: w), base: out.baseAddress!),
                                       workspace: &workspace, on: .inTurn)
                    }
                    try folded.withUnsafeMutableBufferPointer { out in
                        try conv.apply([.upsampled(smallView), .stored(otherView)],
                                       into: TensorView(shape: TensorShape(channels: 4, height: h, width: w), base: out.baseAddress!),
                                       workspace: &workspace, on: .inTurn)
                    }
                }
            }
        }
        let differing = zip(stored, folded).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(stored.count) outputs differ; worst \(Self.worstDifference(stored, folded))")
    }

    @Test func dilatedConvolutionsTakeIm2col() {
        #expect(Self.convolution(in: 2, out: 2, kernel: 3, dilation: 2, relu: false, seed: 1).winograd == nil)
        #expect(Self.convolution(in: 2, out: 2, kernel: 1, dilation: 1, relu: false, seed: 1).winograd == nil)
    }

    /// The network says how large each convolution's maps are; one on small maps never runs
    /// Winograd, so it holds no transformed filters (64/9 times the filters' size).
    @Test func winogradFiltersOnlyForLargeEnoughMaps() {
        func conv(_ pixels: Int?) -> Convolution {
            Convolution(inChannels: 2, outChannels: 2, kernel: 3, dilation: 1, relu: false,
                        weights: Self.values(36, seed: 1), bias: [0, 0], mapPixels: pixels)
        }
        #expect(conv(Convolution.winogradMinimumPlane - 1).winograd == nil)
        #expect(conv(Convolution.winogradMinimumPlane).winograd != nil)
        #expect(conv(nil).winograd != nil)
    }

    @Test(arguments: [1, 2, 8])
    func theIm2colPathMatchesTheDirectConvolution(dilation: Int) throws {
        for (h, w) in Self.sizes {
            #expect(h * w < Convolution.winogradMinimumPlane, "these sizes take the im2col path")
            let seed: UInt64 = 7
            let conv = Self.convolution(in: 4, out: 6, kernel: 3, dilation: dilation, relu: true, seed: seed)
            let x = Tensor(channels: 4, height: h, width: w, data: Self.values(4 * h * w, seed: 11))
            var workspace = ConvolutionWorkspace()
            let out = try conv.apply([x], workspace: &workspace, on: .inTurn)
            let reference = Self.direct(conv, Self.filters(of: conv, seed: seed), x)
            #expect(Self.worstDifference(out.data, reference) < 1e-5, "\(h)x\(w), dilation \(dilation)")
        }
    }

    /// A concat folded into its convolution: the parts give what their concatenation gives, for
    /// both kernels and both paths (a 90x90 map is past the Winograd threshold).
    @Test(arguments: [1, 3])
    func partsConvolveAsTheirConcatenation(kernel: Int) throws {
        for (h, w) in [(9, 7), (90, 90)] {
            let a = Tensor(channels: 2, height: h, width: w, data: Self.values(2 * h * w, seed: 3))
            let b = Tensor(channels: 3, height: h, width: w, data: Self.values(3 * h * w, seed: 5))
            let whole = Tensor(channels: 5, height: h, width: w, data: a.data + b.data)
            let seed: UInt64 = 13
            let conv = Self.convolution(in: 5, out: 4, kernel: kernel, dilation: 1, relu: false, seed: seed)
            var workspace = ConvolutionWorkspace()
            let parts = try conv.apply([a, b], workspace: &workspace, on: .inTurn)
            let reference = Self.direct(conv, Self.filters(of: conv, seed: seed), whole)
            #expect(Self.worstDifference(parts.data, reference) < 1e-4, "\(kernel)x\(kernel) on \(h)x\(w)")
        }
    }

    /// A loop on the calling thread that cancels `flag` (Compute's, as a compute job's) once `cancelAfter` indices
    /// have run.
    final class CancellingLoop: ParallelLoop {
        let width = 2
        let flag = CancellationFlag()
        let cancelAfter: Int
        private let ran = Atomic<Int>(0)

        init(cancelAfter: Int) { self.cancelAfter = cancelAfter }

        var indicesRun: Int { ran.load(ordering: .relaxed) }

        var isCancelled: Bool { flag.isCancelled }

        func forEach(_ count: Int, _ body: @escaping @Sendable (Int, Int) throws -> Void) throws {
            for index in 0..<count {
                if ran.load(ordering: .relaxed) == cancelAfter { flag.cancel() }
                try body(index % width, index)
                ran.add(1, ordering: .relaxed)
            }
        }
    }

    /// The convolution's bands check their loop's cancellation (``ParallelLoop/checkCancellation()``), on whichever
    /// thread of the loop they run: the first band after the request stops the layer.
    @Test func aWinogradLayerStopsWhenCancelled() throws {
        let conv = Self.convolution(in: 64, out: 64, kernel: 3, dilation: 1, relu: true, seed: 1)
        let x = Tensor(channels: 64, height: 160, width: 160)
        var workspace = ConvolutionWorkspace()
        let loop = CancellingLoop(cancelAfter: 3)
        #expect(throws: CancellationError.self) {
            try conv.apply([x], workspace: &workspace, parallel: ParallelBands(loop), on: loop)
        }
        #expect(loop.indicesRun == 3, "bands run: \(loop.indicesRun); stopped at the first band after the request")
        // On one thread, a job already cancelled stops before its first band.
        let cancelled = CancellingLoop(cancelAfter: 0)
        cancelled.flag.cancel()
        #expect(throws: CancellationError.self) {
            try conv.apply([x], workspace: &workspace, on: cancelled)
        }
    }

    @Test func mismatchedPartsAreRefused() {
        let conv = Self.convolution(in: 3, out: 1, kernel: 1, dilation: 1, relu: false, seed: 1)
        var workspace = ConvolutionWorkspace()
        #expect(throws: InferenceError.self) {
            try conv.apply([Tensor(channels: 1, height: 4, width: 4), Tensor(channels: 2, height: 4, width: 5)],
                           workspace: &workspace, on: .inTurn)
        }
        #expect(throws: InferenceError.self) {
            try conv.apply([Tensor(channels: 2, height: 4, width: 4)], workspace: &workspace, on: .inTurn)
        }
    }
}
