import CKernels

/// A 3x3 convolution (stride 1, padding 1, no dilation) computed as Winograd F(4x4, 3x3): each
/// 4x4 block of outputs costs 36 multiply-accumulates per channel pair instead of 144, so the
/// products do 4x fewer MACs than im2col's.
///
/// Per band of tile rows: the input transform `Bᵀ d B` of every 6x6 tile into `V[36][C][T]`
/// (CKernels' `ck_winograd_input`), then, sixteen tiles at a time, the products at each tile position
/// (`M[p] = U[p] · V[p]`, `U = G g Gᵀ` precomputed and packed) and the output transform `Aᵀ M A`, with
/// bias and ReLU, into the output planes (`ck_winograd_multiply`: the sixteen tiles' M stays in cache
/// between the two). A tile row is padded to a multiple of eight tiles, whose extra outputs are dropped.
/// Dilated convolutions, which this network has only on maps of 20x20 and less, take im2col.
struct WinogradKernel: Sendable {
    let inChannels: Int
    let outChannels: Int
    let relu: Bool
    /// `G g Gᵀ` for every filter: 36 matrices of `outChannels x inChannels`, position-major, each packed by
    /// `ck_gemm_pack` (`ck_gemm_packed_count` floats apart).
    let transformedWeights: [Float]
    let bias: [Float]

    /// Transformed-input budget per band, in floats (at least one tile row is taken).
    static let bandFloats = 1 << 18

    /// - Parameter weights: `outChannels x inChannels x 3 x 3`, row-major (ONNX's layout).
    init(inChannels: Int, outChannels: Int, relu: Bool, weights: [Float], bias: [Float]) {
        self.inChannels = inChannels
        self.outChannels = outChannels
        self.relu = relu
        self.bias = bias
        let g: [[Double]] = [[1.0 / 4, 0, 0], [-1.0 / 6, -1.0 / 6, -1.0 / 6], [-1.0 / 6, 1.0 / 6, -1.0 / 6],
                             [1.0 / 24, 1.0 / 12, 1.0 / 6], [1.0 / 24, -1.0 / 12, 1.0 / 6], [0, 0, 1]]
        let pairs = outChannels * inChannels
        var u = [Float](repeating: 0, count: 36 * pairs)
        for pair in 0..<pairs {
            let f = (0..<9).map { Double(weights[pair * 9 + $0]) }
            // G f: 6x3, then (G f) Gᵀ: 6x6, in double precision.
            let gf = (0..<6).map { i in (0..<3).map { j in (0..<3).reduce(0.0) { $0 + g[i][$1] * f[$1 * 3 + j] } } }
            for i in 0..<6 {
                for j in 0..<6 {
                    let v = (0..<3).reduce(0.0) { $0 + gf[i][$1] * g[j][$1] }
                    u[(i * 6 + j) * pairs + pair] = Float(v)
                }
            }
        }
        let packed = ck_gemm_packed_count(outChannels, inChannels)
        var blocks = [Float](repeating: 0, count: 36 * packed)
        blocks.withUnsafeMutableBufferPointer { blocks in
            u.withUnsafeBufferPointer { u in
                for p in 0..<36 {
                    ck_gemm_pack(outChannels, inChannels, u.baseAddress! + p * pairs, inChannels,
                                 blocks.baseAddress! + p * packed)
                }
            }
        }
        transformedWeights = blocks
    }

    /// Writes every element of `out` (`outChannels` planes of the input's size). With `parallel`, the bands of
    /// tile rows (independent: each reads the input and writes its own output rows) are spread over its threads.
    func apply(_ planes: [UnsafePointer<Float>], height h: Int, width w: Int, into out: UnsafeMutablePointer<Float>,
               workspace: inout ConvolutionWorkspace, parallel: ParallelBands? = nil, isCancelled: () -> Bool) throws {
        try apply(planes.map { .stored($0) }, height: h, width: w, into: out, workspace: &workspace, parallel: parallel,
                  isCancelled: isCancelled)
    }

    /// As above, for input planes of which some are read through an enlargement (``InputPlane/upsampled(_:)``).
    func apply(_ planes: [InputPlane], height h: Int, width w: Int, into out: UnsafeMutablePointer<Float>,
               workspace: inout ConvolutionWorkspace, parallel: ParallelBands? = nil, isCancelled: () -> Bool) throws {
        let c = inChannels, k = outChannels
        let blocksX = (w + 3) / 4, blocksY = (h + 3) / 4
        let tilesX = (blocksX + 7) / 8 * 8
        let bandRows = max(1, min(blocksY, Self.bandFloats / (36 * c * tilesX)))
        let bandTiles = bandRows * tilesX
        let bands = (blocksY + bandRows - 1) / bandRows
        // Scratch: V[36][C][bandTiles]; the products' and output transform's scratch; the six rows of Bᵀ d of one
        // tile row (the image at offset 1, zeros before and after it, so edge tiles read zeros); a row of zeros for
        // source rows outside the image; for enlarged planes, the six source rows of a tile row and the cache of
        // rows enlarged along x.
        let padded = 4 * tilesX + 2
        let vCount = 36 * c * bandTiles, multiplyCount = 36 * 16 * k + 16 * 16
        let floats = vCount + multiplyCount + 6 * padded + w + (6 + UpsampledRows.slots) * w
        func prepare(_ buffer: UnsafeMutablePointer<Float>) {
            let rows = buffer + vCount + multiplyCount, zeros = rows + 6 * padded
            rows.update(repeating: 0, count: 6 * padded)
            zeros.update(repeating: 0, count: w)
        }
        func band(_ index: Int, _ buffer: UnsafeMutablePointer<Float>) {
            let v = buffer, multiply = buffer + vCount, rows = multiply + multiplyCount
            let zeros = rows + 6 * padded
            var upsampled = UpsampledRows(memory: zeros + w, width: w)
            let first = index * bandRows
            let bandRowCount = min(bandRows, blocksY - first)
            for (ci, plane) in planes.enumerated() {
                upsampled.startPlane()
                for row in 0..<bandRowCount {
                    // The six source rows of the tile row (from the row above its first to the two below its last).
                    let y0 = 4 * (first + row) - 1
                    func source(_ i: Int) -> UnsafePointer<Float> {
                        let y = y0 + i
                        guard y >= 0 && y < h else { return UnsafePointer(zeros) }
                        switch plane {
                        case .stored(let p): return p + y * w
                        case .upsampled(let u): return upsampled.row(y, of: u, slot: i)
                        }
                    }
                    withUnsafeTemporaryAllocation(of: UnsafePointer<Float>?.self, capacity: 6) { sources in
                        for i in 0..<6 { sources[i] = source(i) }
                        ck_winograd_input(sources.baseAddress, w, tilesX, rows, padded,
                                          v + ci * bandTiles + row * tilesX, c * bandTiles)
                    }
                }
            }
            transformedWeights.withUnsafeBufferPointer { u in
                bias.withUnsafeBufferPointer { bias in
                    ck_winograd_multiply(u.baseAddress, k, c, v, bandTiles, tilesX, bandRowCount, first,
                                         bias.baseAddress, relu ? 1 : 0, multiply, out, h, w)
                }
            }
        }
        if let parallel, bands > 1 {
            try parallel.run(bands, floatsPerThread: floats, isCancelled: isCancelled) { buffer, isFresh, index in
                if isFresh { prepare(buffer) }
                band(index, buffer)
            }
            return
        }
        try workspace.withBuffer(count: floats) { buffer in
            prepare(buffer)
            for index in 0..<bands {
                if isCancelled() { throw CancellationError() }
                band(index, buffer)
            }
        }
    }
}
