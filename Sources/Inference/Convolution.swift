import CKernels
import Compute

/// A stride-1 convolution, 3x3 (any dilation, padding = dilation) or 1x1, with its bias and an
/// optional ReLU fused into the pass that writes the output.
///
/// An undilated 3x3 convolution on a feature map of at least `winogradMinimumPlane` pixels runs as
/// Winograd F(6x6, 3x3) (`WinogradKernel`). Dilated ones, and any on small maps (where the
/// transforms cost more than they save), run as im2col + `ck_gemm` in bands of output rows: each band's
/// column matrix is at most `bandFloats` (a few megabytes, cache-friendly and bounded, rather than
/// the 2 GB a whole-image im2col of this network would write), and the product writes the band straight
/// into the output planes.
struct Convolution: Sendable {
    let inChannels: Int
    let outChannels: Int
    let kernel: Int
    let dilation: Int
    let relu: Bool
    /// The filters (`outChannels x inChannels·kernel²`) packed by `ck_gemm_pack`, for the im2col and 1x1 paths.
    let packedWeights: [Float]
    let bias: [Float]
    /// The same filters, transformed for Winograd (undilated 3x3 only).
    let winograd: WinogradKernel?

    /// Rows of A in one packed block of `ck_gemm`.
    private static let rows = Int(CK_GEMM_ROWS)
    /// Column-matrix budget per band, in floats.
    static let bandFloats = 1 << 20
    /// Pixels per plane from which an undilated 3x3 convolution runs as Winograd.
    static let winogradMinimumPlane = 4096

    /// - Parameter mapPixels: the size of the maps this convolution will see, when known: Winograd
    ///   weights (64/9 times the filters' size) are prepared only if it reaches
    ///   `winogradMinimumPlane`. Nil prepares them for any undilated 3x3 filter.
    /// - Parameter weights: `outChannels x inChannels x kernel x kernel`, row-major (ONNX's layout); kept only
    ///   packed (and transformed for Winograd).
    init(inChannels: Int, outChannels: Int, kernel: Int, dilation: Int, relu: Bool, weights: [Float], bias: [Float],
         mapPixels: Int? = nil) {
        self.inChannels = inChannels
        self.outChannels = outChannels
        self.kernel = kernel
        self.dilation = dilation
        self.relu = relu
        let depth = inChannels * kernel * kernel
        var packed = [Float](repeating: 0, count: ck_gemm_packed_count(outChannels, depth))
        packed.withUnsafeMutableBufferPointer { packed in
            weights.withUnsafeBufferPointer { ck_gemm_pack(outChannels, depth, $0.baseAddress, depth, packed.baseAddress) }
        }
        packedWeights = packed
        self.bias = bias
        winograd = kernel == 3 && dilation == 1 && (mapPixels ?? Self.winogradMinimumPlane) >= Self.winogradMinimumPlane
            ? WinogradKernel(inChannels: inChannels, outChannels: outChannels, relu: relu, weights: weights, bias: bias)
            : nil
    }

    /// Convolves the channel concatenation of `parts` into a new tensor (tests and single layers; a forward pass
    /// uses ``apply(_:into:workspace:parallel:overlap:)`` on its own memory).
    func apply(_ parts: [Tensor], workspace: inout ConvolutionWorkspace, parallel: ParallelBands? = nil,
               on loop: any ParallelLoop) throws -> Tensor {
        let shape = try Tensor.concatenatedShape(of: parts, for: "conv")
        guard shape.channels == inChannels else {
            throw InferenceError.modelDamaged("conv expects \(inChannels) channels, got \(shape.channels)")
        }
        return try Tensor(channels: outChannels, height: shape.height, width: shape.width) { dst in
            try Self.withPlanes(of: parts) { planes in
                try apply(planes, height: shape.height, width: shape.width, into: dst, workspace: &workspace,
                          parallel: parallel, on: loop)
            }
        }
    }

    /// One part of a convolution's input in a forward pass.
    enum Input {
        case stored(TensorView)
        /// A tensor enlarged bilinearly to the output's size as the convolution reads it (a resize the plan
        /// folded in; Winograd convolutions only).
        case upsampled(TensorView)
    }

    /// What a convolution's output shares memory with (the activation plan's choice).
    enum Overlap: Equatable {
        case none
        /// The output holds a residual: the result is added to it.
        case addsToOutput
        /// The output begins one row before the stored part with this index, which it overwrites.
        case overwrites(Int)
    }

    /// Whether a map of `pixels` runs as Winograd (the one path that can read enlarged inputs).
    func runsWinograd(onPixels pixels: Int) -> Bool { winograd != nil && pixels >= Self.winogradMinimumPlane }

    /// Convolves the channel concatenation of `parts` (which need not be copied into one tensor:
    /// the network hands a concat's inputs straight to the convolution that reads it) into `out`, which must not
    /// overlap them. The plan has checked the shapes.
    ///
    /// - Parameter overlap: `out` may instead hold a residual the result is added to, or begin one row before one of
    ///   the stored parts (the part's index; of the output's shape) that this convolution is the last to read: both
    ///   Winograd only (``WinogradKernel/Overlap``).
    func apply(_ parts: [Input], into out: TensorView, workspace: inout ConvolutionWorkspace,
               parallel: ParallelBands? = nil, overlap: Overlap = .none, on loop: any ParallelLoop) throws {
        let h = out.height, w = out.width
        var planes: [InputPlane] = []
        var winogradOverlap = WinogradKernel.Overlap.none
        for (index, part) in parts.enumerated() {
            if case .overwrites(index) = overlap {
                winogradOverlap = .overwritesInput(planes: planes.count..<planes.count + outChannels)
            }
            switch part {
            case .stored(let view):
                planes += (0..<view.channels).map { .stored(UnsafePointer(view.plane($0))) }
            case .upsampled(let view):
                let columns = BilinearTaps(count: w, source: view.width), rows = BilinearTaps(count: h, source: view.height)
                planes += (0..<view.channels).map {
                    .upsampled(UpsampledPlane(source: view.plane($0), sourceWidth: view.width, columns: columns, rows: rows))
                }
            }
        }
        if case .addsToOutput = overlap { winogradOverlap = .addsToOutput }
        if let winograd, runsWinograd(onPixels: h * w) {
            try winograd.apply(planes, height: h, width: w, into: out.base, workspace: &workspace,
                               parallel: parallel, overlap: winogradOverlap, on: loop)
            return
        }
        guard case .none = overlap else { preconditionFailure("the plan shares an output's memory with Winograd convolutions only") }
        let stored = planes.map { plane in
            guard case .stored(let p) = plane else { preconditionFailure("the plan folds resizes into Winograd convolutions only") }
            return p
        }
        try apply(stored, height: h, width: w, into: out.base, workspace: &workspace, parallel: parallel, on: loop)
    }

    /// Writes every output element: Winograd on large enough maps, im2col or 1x1 products otherwise.
    private func apply(_ planes: [UnsafePointer<Float>], height h: Int, width w: Int, into dst: UnsafeMutablePointer<Float>,
                       workspace: inout ConvolutionWorkspace, parallel: ParallelBands?, on loop: any ParallelLoop) throws {
        if let winograd, runsWinograd(onPixels: h * w) {
            try winograd.apply(planes, height: h, width: w, into: dst, workspace: &workspace,
                               parallel: parallel, on: loop)
        } else {
            try multiply(planes, height: h, width: w, into: dst, workspace: &workspace, on: loop)
            addBias(dst, plane: h * w)
        }
    }

    /// The first pixel of every channel plane of `parts`, in order, valid for the duration of `body`.
    static func withPlanes<R>(of parts: [Tensor], from index: Int = 0, collected: [UnsafePointer<Float>] = [],
                              _ body: ([UnsafePointer<Float>]) throws -> R) rethrows -> R {
        guard index < parts.count else { return try body(collected) }
        let part = parts[index]
        return try part.data.withUnsafeBufferPointer { data in
            let planes = (0..<part.channels).map { data.baseAddress! + $0 * part.planeSize }
            return try withPlanes(of: parts, from: index + 1, collected: collected + planes, body)
        }
    }

    /// The matrix-product paths: 1x1 as a product per run of contiguous planes, 3x3 as banded im2col.
    private func multiply(_ planes: [UnsafePointer<Float>], height h: Int, width w: Int,
                          into dst: UnsafeMutablePointer<Float>, workspace: inout ConvolutionWorkspace,
                          on loop: any ParallelLoop) throws {
        let plane = h * w
        let k = inChannels * kernel * kernel
        if kernel == 1 {
            // Planes that follow each other in memory (one part) are one operand.
            var c0 = 0
            while c0 < inChannels {
                var c1 = c0 + 1
                while c1 < inChannels && planes[c1] == planes[c1 - 1] + plane { c1 += 1 }
                packedWeights.withUnsafeBufferPointer { wt in
                    ck_gemm(outChannels, plane, c1 - c0, wt.baseAddress! + Self.rows * c0, Self.rows * k, planes[c0],
                            plane, dst, plane, c0 == 0 ? 0 : 1)
                }
                c0 = c1
            }
            return
        }
        let bandRows = max(1, min(h, Self.bandFloats / max(1, k * w)))
        try workspace.withBuffer(count: k * bandRows * w) { columns in
            var y0 = 0
            while y0 < h {
                try loop.checkCancellation()
                let rows = min(bandRows, h - y0)
                let n = rows * w
                fillColumns(planes, height: h, width: w, firstRow: y0, rows: rows, into: columns)
                packedWeights.withUnsafeBufferPointer { wt in
                    ck_gemm(outChannels, n, k, wt.baseAddress, Self.rows * k, columns, n, dst + y0 * w, plane, 0)
                }
                y0 += rows
            }
        }
    }

    /// Bias and ReLU in one pass over the output.
    private func addBias(_ dst: UnsafeMutablePointer<Float>, plane: Int) {
        for c in 0..<outChannels {
            let b = bias[c]
            let base = dst + c * plane
            if relu {
                for i in 0..<plane { base[i] = max(0, base[i] + b) }
            } else {
                for i in 0..<plane { base[i] += b }
            }
        }
    }

    /// The 3x3 column matrix of output rows `firstRow ..< firstRow + rows`: row `(c, ky, kx)` holds,
    /// for each output pixel of the band, the input pixel the tap reads (0 outside the image).
    private func fillColumns(_ planes: [UnsafePointer<Float>], height h: Int, width w: Int, firstRow: Int, rows: Int,
                             into cols: UnsafeMutablePointer<Float>) {
        let n = rows * w, d = dilation
        var r = 0
        for plane in planes {
            for ky in 0..<3 {
                for kx in 0..<3 {
                    let row = cols + r * n
                    r += 1
                    let dy = (ky - 1) * d, dx = (kx - 1) * d
                    // Output columns whose source column lies inside the image.
                    let xStart = max(0, -dx), xEnd = min(w, w - dx)
                    for yy in 0..<rows {
                        let dstRow = row + yy * w
                        let sy = firstRow + yy + dy
                        guard sy >= 0 && sy < h, xStart < xEnd else {
                            dstRow.update(repeating: 0, count: w)
                            continue
                        }
                        if xStart > 0 { dstRow.update(repeating: 0, count: xStart) }
                        dstRow.advanced(by: xStart).update(from: plane + sy * w + xStart + dx, count: xEnd - xStart)
                        if xEnd < w { dstRow.advanced(by: xEnd).update(repeating: 0, count: w - xEnd) }
                    }
                }
            }
        }
    }
}
