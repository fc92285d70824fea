import COpenBLAS

/// A 3x3 convolution (stride 1, any dilation `d`, padding = `d`) computed as Winograd F(2x2, 3x3):
/// each 2x2 block of outputs costs 16 multiply-accumulates per channel pair instead of 36, so the
/// SGEMMs do 2.25x fewer MACs than im2col's.
///
/// Dilation is a stride of the same algorithm: the tile at origin `(y0, x0)` reads rows and columns
/// `-d, 0, d, 2d` around it and writes outputs `{y0, y0+d} x {x0, x0+d}`. Tile origins run
/// phase-major (`x0 = 2d*b + r`, `r < d`), so every transform reads and writes contiguous arrays:
/// a source row is first split into its `2d` phases (`phase[s][b] = row[2d*b + s - d]`, zero
/// outside the image), after which the tiles of phase `r` read phases `r` and `r + d` at `b` and
/// `b + 1`.
///
/// The work runs in bands of tile rows, each with its own transformed input `V[16][C][T]` and
/// product `M[16][K][T]` (a few megabytes, reused band to band), and the output transform writes
/// bias and ReLU in the same pass.
struct WinogradKernel: Sendable {
    let inChannels: Int
    let outChannels: Int
    let dilation: Int
    let relu: Bool
    /// `G g Gᵀ` for every filter: 16 matrices of `outChannels x inChannels`, position-major.
    let transformedWeights: [Float]
    let bias: [Float]

    /// Transformed-input budget per band, in floats.
    static let bandFloats = 1 << 16

    /// - Parameter weights: `outChannels x inChannels x 3 x 3`, row-major (ONNX's layout).
    init(inChannels: Int, outChannels: Int, dilation: Int, relu: Bool, weights: [Float], bias: [Float]) {
        self.inChannels = inChannels
        self.outChannels = outChannels
        self.dilation = dilation
        self.relu = relu
        self.bias = bias
        var u = [Float](repeating: 0, count: 16 * outChannels * inChannels)
        let pairs = outChannels * inChannels
        for pair in 0..<pairs {
            let g = weights[(pair * 9)..<(pair * 9 + 9)].map { $0 }
            // G g: 4x3, G = [[1,0,0],[½,½,½],[½,-½,½],[0,0,1]].
            var gg = [Float](repeating: 0, count: 12)
            for j in 0..<3 {
                let a = g[j], b = g[3 + j], c = g[6 + j]
                gg[j] = a
                gg[3 + j] = (a + b + c) / 2
                gg[6 + j] = (a - b + c) / 2
                gg[9 + j] = c
            }
            // (G g) Gᵀ: 4x4.
            for i in 0..<4 {
                let a = gg[3 * i], b = gg[3 * i + 1], c = gg[3 * i + 2]
                let row = [a, (a + b + c) / 2, (a - b + c) / 2, c]
                for j in 0..<4 { u[(i * 4 + j) * pairs + pair] = row[j] }
            }
        }
        transformedWeights = u
    }

    /// Writes every element of `out` (`outChannels` planes of the input's size).
    func apply(_ planes: [UnsafePointer<Float>], height h: Int, width w: Int, into out: UnsafeMutablePointer<Float>,
               workspace: inout ConvolutionWorkspace, isCancelled: () -> Bool) throws {
        let d = dilation, c = inChannels, k = outChannels
        // Tiles per axis: blocks of 2d outputs, d phases each.
        let blocksX = (w + 2 * d - 1) / (2 * d), blocksY = (h + 2 * d - 1) / (2 * d)
        let tilesX = d * blocksX
        let tileRows = (0..<d).flatMap { r in (0..<blocksY).map { 2 * d * $0 + r } }.filter { $0 < h }
        let bandRows = max(1, min(tileRows.count, Self.bandFloats / (16 * max(c, k) * tilesX)))
        let bandTiles = bandRows * tilesX
        // Workspace: V[16][C][bandTiles], M[16][K][bandTiles]; the four rows of Bᵀ d of one tile
        // row (d zeros before the image and zeros after it, so the last tiles read zeros); the four
        // output rows of Aᵀ M A; a row of zeros for source rows outside the image.
        let padded = 2 * d * (blocksX + 1)
        let vCount = 16 * c * bandTiles, mCount = 16 * k * bandTiles, scratchCount = 4 * padded + 4 * tilesX + w
        try workspace.withBuffer(count: vCount + mCount + scratchCount) { buffer in
            let v = buffer, m = buffer + vCount, rows = m + mCount
            let outputRows = rows + 4 * padded, zeros = outputRows + 4 * tilesX
            rows.update(repeating: 0, count: 4 * padded)
            // The SGEMMs accumulate into M (beta 1), which the output transform zeroes again as it
            // reads it: cheaper than BLAS clearing it before every product (10% of a pass).
            m.update(repeating: 0, count: mCount)
            zeros.update(repeating: 0, count: w)
            var first = 0
            while first < tileRows.count {
                if isCancelled() { throw CancellationError() }
                let bandRowCount = min(bandRows, tileRows.count - first)
                let tiles = bandRowCount * tilesX
                for (ci, plane) in planes.enumerated() {
                    for row in 0..<bandRowCount {
                        transformInput(plane: plane, height: h, width: w, tileRow: tileRows[first + row],
                                       blocks: blocksX, rows: rows, padded: padded, zeros: zeros,
                                       into: v + ci * bandTiles + row * tilesX, positionStride: c * bandTiles)
                    }
                }
                transformedWeights.withUnsafeBufferPointer { u in
                    for p in 0..<16 {
                        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(k), Int32(tiles), Int32(c),
                                    1, u.baseAddress! + p * k * c, Int32(c), v + p * c * bandTiles,
                                    Int32(bandTiles), 1, m + p * k * bandTiles, Int32(bandTiles))
                    }
                }
                for ki in 0..<k {
                    for row in 0..<bandRowCount {
                        transformOutput(m + ki * bandTiles + row * tilesX, positionStride: k * bandTiles,
                                        tiles: tilesX, tileRow: tileRows[first + row], blocks: blocksX, bias: bias[ki],
                                        scratch: outputRows, plane: out + ki * h * w, height: h, width: w)
                    }
                }
                first += bandRowCount
            }
        }
    }

    /// `Bᵀ d B` for the tiles of one tile row in one channel, written to `v[position][tile]`.
    ///
    /// `Bᵀ d` first, on whole source rows (contiguous, vectorised), into `rows` (four rows of
    /// `padded` floats whose first `d` and last entries stay zero); then `· B` per tile, which for
    /// tile `(r, b)` reads `p[2d*b + r + {0, d, 2d, 3d}]` of each row.
    private func transformInput(plane: UnsafePointer<Float>, height h: Int, width w: Int, tileRow y0: Int,
                                blocks: Int, rows: UnsafeMutablePointer<Float>, padded: Int,
                                zeros: UnsafeMutablePointer<Float>, into v: UnsafeMutablePointer<Float>, positionStride: Int) {
        let d = dilation
        func source(_ i: Int) -> UnsafePointer<Float> {
            let y = y0 + (i - 1) * d
            return y >= 0 && y < h ? plane + y * w : UnsafePointer(zeros)
        }
        let s0 = source(0), s1 = source(1), s2 = source(2), s3 = source(3)
        let t0 = rows + d, t1 = t0 + padded, t2 = t1 + padded, t3 = t2 + padded
        for j in 0..<w {
            let a = s0[j], b = s1[j], c = s2[j], e = s3[j]
            t0[j] = a - c
            t1[j] = b + c
            t2[j] = c - b
            t3[j] = b - e
        }
        for i in 0..<4 {
            let p = UnsafePointer(rows + i * padded)
            let v0 = v + (4 * i) * positionStride, v1 = v0 + positionStride
            let v2 = v1 + positionStride, v3 = v2 + positionStride
            if d == 1 {
                // Eight tiles at a time: p[2b ..< 2b + 16] and p[2b + 2 ..< 2b + 18], split into
                // even and odd entries, are columns -1, 0 and 1, 2 of tiles b ..< b + 8.
                let raw = UnsafeRawPointer(p)
                var b = 0
                while b + 8 <= blocks {
                    let lo = raw.loadUnaligned(fromByteOffset: 8 * b, as: SIMD16<Float>.self)
                    let hi = raw.loadUnaligned(fromByteOffset: 8 * b + 8, as: SIMD16<Float>.self)
                    let a = lo.evenHalf, bb = lo.oddHalf, c = hi.evenHalf, e = hi.oddHalf
                    UnsafeMutableRawPointer(v0 + b).storeBytes(of: a - c, as: SIMD8<Float>.self)
                    UnsafeMutableRawPointer(v1 + b).storeBytes(of: bb + c, as: SIMD8<Float>.self)
                    UnsafeMutableRawPointer(v2 + b).storeBytes(of: c - bb, as: SIMD8<Float>.self)
                    UnsafeMutableRawPointer(v3 + b).storeBytes(of: bb - e, as: SIMD8<Float>.self)
                    b += 8
                }
                while b < blocks {
                    let a = p[2 * b], bb = p[2 * b + 1], c = p[2 * b + 2], e = p[2 * b + 3]
                    v0[b] = a - c
                    v1[b] = bb + c
                    v2[b] = c - bb
                    v3[b] = bb - e
                    b += 1
                }
                continue
            }
            for r in 0..<d {
                let o = r * blocks
                for b in 0..<blocks {
                    let x = 2 * d * b + r
                    let a = p[x], bb = p[x + d], c = p[x + 2 * d], e = p[x + 3 * d]
                    v0[o + b] = a - c
                    v1[o + b] = bb + c
                    v2[o + b] = c - bb
                    v3[o + b] = bb - e
                }
            }
        }
    }

    /// `Aᵀ M A` plus bias (and ReLU) for the tiles of one tile row of one output channel, computed
    /// over all its tiles at once into `scratch` (four rows of `tiles`), then written into the
    /// output plane where the outputs fall inside it. Leaves the entries of M it read at zero.
    private func transformOutput(_ m: UnsafeMutablePointer<Float>, positionStride: Int, tiles: Int, tileRow y0: Int,
                                 blocks: Int, bias: Float, scratch: UnsafeMutablePointer<Float>,
                                 plane: UnsafeMutablePointer<Float>, height h: Int, width w: Int) {
        let d = dilation
        let y00 = scratch, y01 = y00 + tiles, y10 = y01 + tiles, y11 = y10 + tiles
        let floor: Float = relu ? 0 : -.infinity
        for t in 0..<tiles {
            // Aᵀ M, column by column: s0 = m0 + m1 + m2, s1 = m1 - m2 - m3 (rows of M).
            var s0 = SIMD4<Float>(), s1 = SIMD4<Float>()
            for j in 0..<4 {
                let m0 = m[j &* positionStride &+ t], m1 = m[(4 &+ j) &* positionStride &+ t]
                let m2 = m[(8 &+ j) &* positionStride &+ t], m3 = m[(12 &+ j) &* positionStride &+ t]
                s0[j] = m0 + m1 + m2
                s1[j] = m1 - m2 - m3
            }
            y00[t] = max(floor, s0[0] + s0[1] + s0[2] + bias)
            y01[t] = max(floor, s0[1] - s0[2] - s0[3] + bias)
            y10[t] = max(floor, s1[0] + s1[1] + s1[2] + bias)
            y11[t] = max(floor, s1[1] - s1[2] - s1[3] + bias)
        }
        for p in 0..<16 { (m + p * positionStride).update(repeating: 0, count: tiles) }
        let rows = y0 + d < h ? 2 : 1
        for (dy, pair) in [(y00, y01), (y10, y11)].prefix(rows).enumerated() {
            let line = plane + (y0 + dy * d) * w
            if d == 1 {
                // Whole tiles interleaved; the last half tile of an odd width alone.
                let whole = w / 2
                for b in 0..<whole {
                    line[2 &* b] = pair.0[b]
                    line[2 &* b &+ 1] = pair.1[b]
                }
                if w % 2 == 1 { line[w - 1] = pair.0[whole] }
                continue
            }
            for r in 0..<d {
                for b in 0..<blocks {
                    let x0 = 2 * d * b + r
                    guard x0 < w else { break }
                    line[x0] = pair.0[r * blocks + b]
                    if x0 + d < w { line[x0 + d] = pair.1[r * blocks + b] }
                }
            }
        }
    }
}
