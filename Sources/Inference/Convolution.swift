import COpenBLAS

/// A stride-1 convolution, 3x3 (any dilation, padding = dilation) or 1x1, with its bias and an
/// optional ReLU fused into the pass that writes the output.
///
/// The 3x3 case is im2col + SGEMM, in bands of output rows: each band's column matrix is at most
/// `bandFloats` (a few megabytes, cache-friendly and bounded, rather than the 2 GB a whole-image
/// im2col of this network would write), and SGEMM writes the band straight into the output planes.
struct Convolution: Sendable {
    let inChannels: Int
    let outChannels: Int
    let kernel: Int
    let dilation: Int
    let relu: Bool
    /// `outChannels x inChannels x kernel x kernel`, row-major (ONNX's layout).
    let weights: [Float]
    let bias: [Float]

    /// Column-matrix budget per band, in floats.
    static let bandFloats = 1 << 20

    func apply(_ x: Tensor, isCancelled: () -> Bool) throws -> Tensor {
        guard x.channels == inChannels else {
            throw InferenceError.modelDamaged("conv expects \(inChannels) channels, got \(x.channels)")
        }
        let h = x.height, w = x.width, plane = h * w
        var out = [Float](repeating: 0, count: outChannels * plane)
        let k = inChannels * kernel * kernel
        if kernel == 1 {
            x.data.withUnsafeBufferPointer { src in
                weights.withUnsafeBufferPointer { wt in
                    out.withUnsafeMutableBufferPointer { dst in
                        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(outChannels), Int32(plane), Int32(k),
                                    1, wt.baseAddress, Int32(k), src.baseAddress, Int32(plane), 0, dst.baseAddress, Int32(plane))
                    }
                }
            }
        } else {
            let bandRows = max(1, min(h, Self.bandFloats / max(1, k * w)))
            var columns = [Float](repeating: 0, count: k * bandRows * w)
            var y0 = 0
            while y0 < h {
                if isCancelled() { throw CancellationError() }
                let rows = min(bandRows, h - y0)
                let n = rows * w
                fillColumns(x, firstRow: y0, rows: rows, into: &columns)
                columns.withUnsafeBufferPointer { cols in
                    weights.withUnsafeBufferPointer { wt in
                        out.withUnsafeMutableBufferPointer { dst in
                            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(outChannels), Int32(n), Int32(k),
                                        1, wt.baseAddress, Int32(k), cols.baseAddress, Int32(n), 0,
                                        dst.baseAddress! + y0 * w, Int32(plane))
                        }
                    }
                }
                y0 += rows
            }
        }
        // Bias and ReLU in one pass over the output.
        out.withUnsafeMutableBufferPointer { dst in
            for c in 0..<outChannels {
                let b = bias[c]
                let base = dst.baseAddress! + c * plane
                if relu {
                    for i in 0..<plane { base[i] = max(0, base[i] + b) }
                } else {
                    for i in 0..<plane { base[i] += b }
                }
            }
        }
        return Tensor(channels: outChannels, height: h, width: w, data: out)
    }

    /// The 3x3 column matrix of output rows `firstRow ..< firstRow + rows`: row `(c, ky, kx)` holds,
    /// for each output pixel of the band, the input pixel the tap reads (0 outside the image).
    private func fillColumns(_ x: Tensor, firstRow: Int, rows: Int, into columns: inout [Float]) {
        let h = x.height, w = x.width, n = rows * w, d = dilation
        x.data.withUnsafeBufferPointer { src in
            columns.withUnsafeMutableBufferPointer { cols in
                var r = 0
                for c in 0..<inChannels {
                    let plane = src.baseAddress! + c * h * w
                    for ky in 0..<3 {
                        for kx in 0..<3 {
                            let row = cols.baseAddress! + r * n
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
    }
}
