import COpenBLAS

/// A 3x3 convolution (stride 1, padding 1, no dilation) computed as Winograd F(4x4, 3x3): each
/// 4x4 block of outputs costs 36 multiply-accumulates per channel pair instead of 144, so the
/// SGEMMs do 4x fewer MACs than im2col's.
///
/// Per band of tile rows: the input transform `Bᵀ d B` of every 6x6 tile into `V[36][C][T]`, one
/// SGEMM per tile position (`M[p] = U[p] · V[p]`, `U = G g Gᵀ` precomputed), then the output
/// transform `Aᵀ M A`, with bias and ReLU, into the output planes. The transforms run eight tiles
/// at a time (SIMD); a tile row is padded to a multiple of eight tiles, whose extra outputs are
/// dropped. Dilated convolutions, which this network has only on maps of 20x20 and less, take
/// im2col.
struct WinogradKernel: Sendable {
    let inChannels: Int
    let outChannels: Int
    let relu: Bool
    /// `G g Gᵀ` for every filter: 36 matrices of `outChannels x inChannels`, position-major.
    let transformedWeights: [Float]
    let bias: [Float]

    /// Transformed-input budget per band, in floats (at least one tile row is taken).
    static let bandFloats = 1 << 16

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
        transformedWeights = u
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
        let bandRows = max(1, min(blocksY, Self.bandFloats / (36 * max(c, k) * tilesX)))
        let bandTiles = bandRows * tilesX
        let bands = (blocksY + bandRows - 1) / bandRows
        // Scratch: V[36][C][bandTiles], M[36][K][bandTiles]; the six rows of Bᵀ d of one tile row
        // (the image at offset 1, zeros before and after it, so edge tiles read zeros); the sixteen
        // output rows of one tile row; a row of zeros for source rows outside the image; for enlarged
        // planes, the six source rows of a tile row and the cache of rows enlarged along x.
        let padded = 4 * tilesX + 40
        let vCount = 36 * c * bandTiles, mCount = 36 * k * bandTiles
        let floats = vCount + mCount + 6 * padded + 16 * tilesX + w + (6 + UpsampledRows.slots) * w
        func prepare(_ buffer: UnsafeMutablePointer<Float>) {
            let m = buffer + vCount, rows = m + mCount, zeros = rows + 6 * padded + 16 * tilesX
            rows.update(repeating: 0, count: 6 * padded)
            zeros.update(repeating: 0, count: w)
            // The SGEMMs accumulate into M (beta 1), and the output transform clears what it has
            // read: cheaper than BLAS clearing M before every product.
            m.update(repeating: 0, count: mCount)
        }
        func band(_ index: Int, _ buffer: UnsafeMutablePointer<Float>) {
            let v = buffer, m = buffer + vCount, rows = m + mCount
            let outputRows = rows + 6 * padded, zeros = outputRows + 16 * tilesX
            var upsampled = UpsampledRows(memory: zeros + w, width: w)
            let first = index * bandRows
            let bandRowCount = min(bandRows, blocksY - first)
            let tiles = bandRowCount * tilesX
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
                    transformInput((source(0), source(1), source(2), source(3), source(4), source(5)), width: w,
                                   tiles: tilesX, rows: rows, padded: padded,
                                   into: v + ci * bandTiles + row * tilesX, positionStride: c * bandTiles)
                }
            }
            transformedWeights.withUnsafeBufferPointer { u in
                for p in 0..<36 {
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(k), Int32(tiles), Int32(c),
                                1, u.baseAddress! + p * k * c, Int32(c), v + p * c * bandTiles,
                                Int32(bandTiles), 1, m + p * k * bandTiles, Int32(bandTiles))
                }
            }
            for ki in 0..<k {
                for row in 0..<bandRowCount {
                    transformOutput(m + ki * bandTiles + row * tilesX, positionStride: k * bandTiles,
                                    tiles: tilesX, tileRow: first + row, bias: bias[ki], scratch: outputRows,
                                    plane: out + ki * h * w, height: h, width: w)
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

    /// `Bᵀ d B` for the tiles of one tile row in one channel, written to `v[position][tile]`:
    /// `Bᵀ d` on whole source rows first (contiguous), into `rows`, then `· B` eight tiles at a
    /// time, tile `b` reading entries `4b ..< 4b + 6` of each row (source columns `4b - 1 ...`).
    /// `sources`: the tile row's six input rows (zeros outside the image).
    private func transformInput(_ sources: SixRows, width w: Int, tiles: Int,
                                rows: UnsafeMutablePointer<Float>, padded: Int,
                                into v: UnsafeMutablePointer<Float>, positionStride: Int) {
        let (s0, s1, s2, s3, s4, s5) = sources
        let t0 = rows + 1, t1 = t0 + padded, t2 = t1 + padded, t3 = t2 + padded, t4 = t3 + padded, t5 = t4 + padded
        for j in 0..<w {
            let x0 = s0[j], x1 = s1[j], x2 = s2[j], x3 = s3[j], x4 = s4[j], x5 = s5[j]
            t0[j] = 4 * x0 - 5 * x2 + x4
            t1[j] = x4 + x3 - 4 * (x1 + x2)
            t2[j] = x4 - x3 + 4 * (x1 - x2)
            t3[j] = x4 - x2 + 2 * (x3 - x1)
            t4[j] = x4 - x2 - 2 * (x3 - x1)
            t5[j] = 4 * x1 - 5 * x3 + x5
        }
        for i in 0..<6 {
            let raw = UnsafeRawPointer(rows + i * padded)
            let out = v + 6 * i * positionStride
            var b = 0
            while b < tiles {
                let a = raw.loadUnaligned(fromByteOffset: 16 * b, as: SIMD32<Float>.self)
                let n = raw.loadUnaligned(fromByteOffset: 16 * b + 16, as: SIMD32<Float>.self)
                let x0 = a.evenHalf.evenHalf, x1 = a.oddHalf.evenHalf, x2 = a.evenHalf.oddHalf
                let x3 = a.oddHalf.oddHalf, x4 = n.evenHalf.evenHalf, x5 = n.oddHalf.evenHalf
                let columns = Self.inputRow(x0, x1, x2, x3, x4, x5)
                func store(_ j: Int, _ value: SIMD8<Float>) {
                    UnsafeMutableRawPointer(out + j * positionStride + b).storeBytes(of: value, as: SIMD8<Float>.self)
                }
                store(0, columns.0); store(1, columns.1); store(2, columns.2)
                store(3, columns.3); store(4, columns.4); store(5, columns.5)
                b += 8
            }
        }
    }

    /// `Aᵀ M A` plus bias (and ReLU) for the tiles of one tile row of one output channel, eight
    /// tiles at a time into `scratch` (sixteen rows of `tiles`: output row `j`, column `i` of each
    /// tile), then written into the output plane where the outputs fall inside it. Clears the
    /// entries of M it read.
    private func transformOutput(_ m: UnsafeMutablePointer<Float>, positionStride: Int, tiles: Int, tileRow: Int,
                                 bias: Float, scratch: UnsafeMutablePointer<Float>,
                                 plane: UnsafeMutablePointer<Float>, height h: Int, width w: Int) {
        let biasVector = SIMD8<Float>(repeating: bias), relu = self.relu
        var t = 0
        while t < tiles {
            func load(_ p: Int) -> SIMD8<Float> {
                UnsafeRawPointer(m + p * positionStride + t).loadUnaligned(as: SIMD8<Float>.self)
            }
            // Aᵀ M: four rows of six, each column from the six rows of M; then (Aᵀ M) A per row.
            withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: 24) { s in
                for col in 0..<6 {
                    let r = Self.outputColumn(load(col), load(6 + col), load(12 + col),
                                              load(18 + col), load(24 + col), load(30 + col))
                    s[col] = r.0; s[6 + col] = r.1; s[12 + col] = r.2; s[18 + col] = r.3
                }
                for j in 0..<4 {
                    let y = Self.outputColumn(s[6 * j], s[6 * j + 1], s[6 * j + 2], s[6 * j + 3], s[6 * j + 4], s[6 * j + 5])
                    func store(_ i: Int, _ value: SIMD8<Float>) {
                        UnsafeMutableRawPointer(scratch + (4 * j + i) * tiles + t)
                            .storeBytes(of: Self.activated(value + biasVector, relu: relu), as: SIMD8<Float>.self)
                    }
                    store(0, y.0); store(1, y.1); store(2, y.2); store(3, y.3)
                }
            }
            t += 8
        }
        for p in 0..<36 { (m + p * positionStride).update(repeating: 0, count: tiles) }
        let y0 = 4 * tileRow
        for j in 0..<min(4, h - y0) {
            let line = plane + (y0 + j) * w
            let c0 = scratch + 4 * j * tiles, c1 = c0 + tiles, c2 = c1 + tiles, c3 = c2 + tiles
            let whole = w / 4
            for b in 0..<whole {
                line[4 &* b] = c0[b]
                line[4 &* b &+ 1] = c1[b]
                line[4 &* b &+ 2] = c2[b]
                line[4 &* b &+ 3] = c3[b]
            }
            // A partial last block: its column i is row i of the block's four.
            for x in (4 * whole)..<w { line[x] = (c0 + (x - 4 * whole) * tiles)[whole] }
        }
    }

    /// Bᵀ x for six values (one column or row of a tile).
    @inline(__always)
    static func inputRow(_ x0: SIMD8<Float>, _ x1: SIMD8<Float>, _ x2: SIMD8<Float>, _ x3: SIMD8<Float>,
                         _ x4: SIMD8<Float>, _ x5: SIMD8<Float>)
        -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        let four = SIMD8<Float>(repeating: 4), five = SIMD8<Float>(repeating: 5), two = SIMD8<Float>(repeating: 2)
        let v0: SIMD8<Float> = four * x0 - five * x2 + x4
        let v1: SIMD8<Float> = x4 + x3 - four * (x1 + x2)
        let v2: SIMD8<Float> = x4 - x3 + four * (x1 - x2)
        let v3: SIMD8<Float> = x4 - x2 + two * (x3 - x1)
        let v4: SIMD8<Float> = x4 - x2 - two * (x3 - x1)
        let v5: SIMD8<Float> = four * x1 - five * x3 + x5
        return (v0, v1, v2, v3, v4, v5)
    }

    /// Aᵀ m for six values: the four outputs.
    @inline(__always)
    static func outputColumn(_ m0: SIMD8<Float>, _ m1: SIMD8<Float>, _ m2: SIMD8<Float>, _ m3: SIMD8<Float>,
                             _ m4: SIMD8<Float>, _ m5: SIMD8<Float>) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        let two = SIMD8<Float>(repeating: 2), four = SIMD8<Float>(repeating: 4), eight = SIMD8<Float>(repeating: 8)
        let plus: SIMD8<Float> = m1 + m2, minus: SIMD8<Float> = m1 - m2
        let plus34: SIMD8<Float> = m3 + m4, minus34: SIMD8<Float> = m3 - m4
        let y0: SIMD8<Float> = m0 + plus + plus34
        let y1: SIMD8<Float> = minus + two * minus34
        let y2: SIMD8<Float> = plus + four * plus34
        let y3: SIMD8<Float> = minus + eight * minus34 + m5
        return (y0, y1, y2, y3)
    }

    /// ReLU when asked, lane by lane and inlined into the output transform's loop (a generic
    /// standard-library call per vector there is measurable).
    @inline(__always)
    static func activated(_ x: SIMD8<Float>, relu: Bool) -> SIMD8<Float> {
        relu ? x.replacing(with: 0, where: x .< 0) : x
    }
}

/// The six input rows of a tile row.
typealias SixRows = (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>,
                     UnsafePointer<Float>, UnsafePointer<Float>)
