import CKernels
import Compute

/// A 3x3 convolution (stride 1, padding 1, no dilation) computed as Winograd F(6x6, 3x3): each
/// 6x6 block of outputs costs 64 multiply-accumulates per channel pair instead of 324, so the
/// products do 5x fewer MACs than im2col's (F(4x4, 3x3) did 4x: 36 per 16 outputs).
///
/// Per band of tile rows: the input transform `Bᵀ d B` of every 8x8 tile into `V[64][C][T]`
/// (CKernels' `ck_winograd_input`), then, sixteen tiles at a time, the products at each tile position
/// (`M[p] = U[p] · V[p]`, `U = G g Gᵀ` precomputed and packed) and the output transform `Aᵀ M A`, with
/// bias and ReLU, into the output planes (`ck_winograd_multiply`: the sixteen tiles' M stays in cache
/// between the two). A tile row is padded to a multiple of eight tiles, whose extra outputs are dropped.
/// Dilated convolutions, which this network has only on maps of 20x20 and less, take im2col.
///
/// The points are 0, ±1, ±1/2, ±2 and infinity; the larger tile's transforms round more than F(4x4, 3x3)'s
/// (about twice the error against a double-precision convolution), well inside what the map's comparison with
/// onnxruntime allows (bench/README.md).
struct WinogradKernel: Sendable {
    /// Outputs per tile side, inputs per tile side (the outputs plus the filter's two), positions per tile.
    static let outputTile = 6, inputTile = 8, positions = 64

    let inChannels: Int
    let outChannels: Int
    let relu: Bool
    /// `G g Gᵀ` for every filter: 64 matrices of `outChannels x inChannels`, position-major, each packed by
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
        let g: [[Double]] = [[1, 0, 0], [-2.0 / 9, -2.0 / 9, -2.0 / 9], [-2.0 / 9, 2.0 / 9, -2.0 / 9],
                             [1.0 / 90, 1.0 / 45, 2.0 / 45], [1.0 / 90, -1.0 / 45, 2.0 / 45],
                             [32.0 / 45, 16.0 / 45, 8.0 / 45], [32.0 / 45, -16.0 / 45, 8.0 / 45], [0, 0, 1]]
        let n = Self.inputTile, positions = Self.positions
        let pairs = outChannels * inChannels
        var u = [Float](repeating: 0, count: positions * pairs)
        for pair in 0..<pairs {
            let f = (0..<9).map { Double(weights[pair * 9 + $0]) }
            // G f: 8x3, then (G f) Gᵀ: 8x8, in double precision.
            let gf: [[Double]] = (0..<n).map { (i: Int) -> [Double] in
                (0..<3).map { (j: Int) -> Double in
                    var sum = 0.0
                    for k in 0..<3 { sum += g[i][k] * f[k * 3 + j] }
                    return sum
                }
            }
            for i in 0..<n {
                for j in 0..<n {
                    let v = (0..<3).reduce(0.0) { $0 + gf[i][$1] * g[j][$1] }
                    u[(i * n + j) * pairs + pair] = Float(v)
                }
            }
        }
        let packed = ck_gemm_packed_count(outChannels, inChannels)
        var blocks = [Float](repeating: 0, count: positions * packed)
        blocks.withUnsafeMutableBufferPointer { blocks in
            u.withUnsafeBufferPointer { u in
                for p in 0..<positions {
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
               workspace: inout ConvolutionWorkspace, parallel: ParallelBands? = nil,
               on loop: any ParallelLoop) throws {
        try apply(planes.map { .stored($0) }, height: h, width: w, into: out, workspace: &workspace, parallel: parallel,
                  on: loop)
    }

    /// How a convolution's output may share memory with what it reads.
    enum Overlap {
        /// `out` is memory of its own.
        case none
        /// `out` holds a residual of the output's shape: the result is added to it, element by element (the
        /// network's addition fused into the output transform, so the sum is computed where the residual lies).
        case addsToOutput
        /// The stored input planes `planes` (as many as the outputs, each of the output's size, one after the other)
        /// begin one row after `out`: output row `y` of channel `k` is written over input row `y - 1` of channel
        /// `k`, which no band reads any more once the rows above it are done (see ``apply(_:height:width:into:workspace:parallel:overlap:)``).
        case overwritesInput(planes: Range<Int>)
    }

    /// As above, for input planes of which some are read through an enlargement (``InputPlane/upsampled(_:)``), and
    /// an output that may share memory with a residual or an input (``Overlap``).
    ///
    /// Writing over the input one row up: a band of tile rows reads input rows `6f - 1 ... 6(f + n)` before it writes
    /// output rows `6f ... 6(f + n) - 1`, that is input rows `6f - 1 ... 6(f + n) - 2`, so bands run in order on one
    /// thread never read a row already written. Run as chunks of consecutive bands on several threads, a chunk's last
    /// band reads the two rows the next chunk writes first, and the first band writes each plane's row 0 over the
    /// previous plane's last row, which the last band reads: those rows are copied aside before any band runs, and
    /// read from the copy.
    func apply(_ planes: [InputPlane], height h: Int, width w: Int, into out: UnsafeMutablePointer<Float>,
               workspace: inout ConvolutionWorkspace, parallel: ParallelBands? = nil, overlap: Overlap = .none,
               on loop: any ParallelLoop) throws {
        let c = inChannels, k = outChannels
        let m = Self.outputTile, n = Self.inputTile, positions = Self.positions
        let blocksX = (w + m - 1) / m, blocksY = (h + m - 1) / m
        let tilesX = (blocksX + 7) / 8 * 8
        let bandRows = max(1, min(blocksY, Self.bandFloats / (positions * c * tilesX)))
        let bandTiles = bandRows * tilesX
        let bands = (blocksY + bandRows - 1) / bandRows
        // Scratch: V[64][C][bandTiles]; M of sixteen tiles; the eight rows of Bᵀ d of one tile row (the image at
        // offset 1, zeros before and after it, so edge tiles read zeros); a row of zeros for source rows outside
        // the image; for enlarged planes, the eight source rows of a tile row and the cache of rows enlarged
        // along x.
        let padded = m * tilesX + 16
        let vCount = positions * c * bandTiles, multiplyCount = positions * 16 * k
        let floats = vCount + multiplyCount + n * padded + w + (n + UpsampledRows.slots) * w
        func prepare(_ buffer: UnsafeMutablePointer<Float>) {
            let rows = buffer + vCount + multiplyCount, zeros = rows + n * padded
            rows.update(repeating: 0, count: n * padded)
            zeros.update(repeating: 0, count: w)
        }
        // Writing over the input: the chunks of bands, and the rows read from a copy (row -> its place in it).
        let overwritten: Range<Int>
        var chunks = 1
        if case .overwritesInput(let range) = overlap {
            overwritten = range
            chunks = parallel.map { min(bands, 4 * $0.threads) } ?? 1
        } else {
            overwritten = 0..<0
        }
        func chunkStart(_ i: Int) -> Int { i * bands / chunks }
        var aside = Set<Int>()
        if !overwritten.isEmpty {
            aside.insert(h - 1)
            for i in 1..<chunks {
                let y = m * bandRows * chunkStart(i)
                aside.formUnion([y - 1, y].filter { $0 >= 0 && $0 < h })
            }
        }
        let copiedRows = aside.sorted()
        var copied = [Int](repeating: -1, count: overwritten.isEmpty ? 0 : h)
        for (i, row) in copiedRows.enumerated() { copied[row] = i }
        let copy = UnsafeMutablePointer<Float>.allocate(capacity: overwritten.count * copiedRows.count * w)
        defer { copy.deallocate() }
        for (pi, p) in overwritten.enumerated() {
            guard case .stored(let plane) = planes[p] else { preconditionFailure("an overwritten input is stored") }
            for (i, row) in copiedRows.enumerated() {
                (copy + (pi * copiedRows.count + i) * w).update(from: plane + row * w, count: w)
            }
        }
        func band(_ index: Int, _ buffer: UnsafeMutablePointer<Float>) {
            let v = buffer, multiply = buffer + vCount, rows = multiply + multiplyCount
            let zeros = rows + n * padded
            var upsampled = UpsampledRows(memory: zeros + w, width: w)
            let first = index * bandRows
            let bandRowCount = min(bandRows, blocksY - first)
            for (ci, plane) in planes.enumerated() {
                upsampled.startPlane()
                for row in 0..<bandRowCount {
                    // The eight source rows of the tile row (from the row above its first to the two below its last).
                    let y0 = m * (first + row) - 1
                    func source(_ i: Int) -> UnsafePointer<Float> {
                        let y = y0 + i
                        guard y >= 0 && y < h else { return UnsafePointer(zeros) }
                        switch plane {
                        case .stored(let p):
                            if overwritten.contains(ci), copied[y] >= 0 {
                                return UnsafePointer(copy + ((ci - overwritten.lowerBound) * copiedRows.count + copied[y]) * w)
                            }
                            return p + y * w
                        case .upsampled(let u): return upsampled.row(y, of: u, slot: i)
                        }
                    }
                    withUnsafeTemporaryAllocation(of: UnsafePointer<Float>?.self, capacity: n) { sources in
                        for i in 0..<n { sources[i] = source(i) }
                        ck_winograd_input(sources.baseAddress, w, tilesX, rows, padded,
                                          v + ci * bandTiles + row * tilesX, c * bandTiles)
                    }
                }
            }
            transformedWeights.withUnsafeBufferPointer { u in
                bias.withUnsafeBufferPointer { bias in
                    ck_winograd_multiply(u.baseAddress, k, c, v, bandTiles, tilesX, bandRowCount, first,
                                         bias.baseAddress, relu ? 1 : 0, overlap.adds ? 1 : 0, multiply, out, h, w)
                }
            }
        }
        if let parallel, bands > 1 {
            // Writing over the input, a thread takes a chunk of bands and runs them in order; otherwise any band.
            let inOrder = !overwritten.isEmpty
            try parallel.run(inOrder ? chunks : bands, floatsPerThread: floats) {
                buffer, isFresh, index, checkpoint in
                if isFresh { prepare(buffer) }
                if inOrder {
                    for b in chunkStart(index)..<chunkStart(index + 1) {
                        if b > chunkStart(index) { try checkpoint() }
                        band(b, buffer)
                    }
                } else {
                    band(index, buffer)
                }
            }
            return
        }
        try workspace.withBuffer(count: floats) { buffer in
            prepare(buffer)
            for index in 0..<bands {
                try loop.checkCancellation()
                band(index, buffer)
            }
        }
    }
}

extension WinogradKernel.Overlap {
    /// Whether the result is added to what the output holds.
    var adds: Bool { if case .addsToOutput = self { true } else { false } }
}
