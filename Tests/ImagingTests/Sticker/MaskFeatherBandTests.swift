import Compute
import Testing
@testable import Imaging

/// The feather in bands (``MaskFeather/rowsPerBand`` rows, each with a copy of the rows around it, spread over a
/// pool's idle threads) gives the bytes of one band over the whole height, the one-pass blur it replaced (which
/// gave the same stickers byte for byte, bench/README.md): masks with many edges, touching every border,
/// heights of one band and of several with a partial last one (of a single row, too), a kernel of radius 48 (sigma
/// 16) reaching across most of a band, masks of one row and of one column.
@Suite(.timeLimit(.minutes(10))) struct MaskFeatherBandTests {
    @Test(arguments: [(300, 200, 1.0), (97, 130, 2.5), (40, 64, 1.5), (1, 150, 2.0), (150, 1, 2.0), (50, 129, 16.0)])
    func bandsGiveTheOnePassBytes(size: (Int, Int, Double)) async throws {
        let (w, h, sigma) = size
        var state: UInt64 = UInt64(w * 7919 + h)
        var mask = [UInt8](repeating: 0, count: w * h)
        // Discs and bars of subject, some cut by the border.
        for _ in 0..<8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let cx = Int(state >> 33) % (w + 20) - 10, cy = Int(state >> 13) % (h + 20) - 10
            let radius = 2 + Int(state >> 50) % 12
            for y in 0..<h where abs(y - cy) <= radius {
                for x in 0..<w where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius {
                    mask[y * w + x] = 255
                }
            }
        }
        for y in 0..<h where y % 37 < 3 { for x in 0..<w / 2 { mask[y * w + x] = 255 } }
        var expected = mask
        try MaskFeather.feather(&expected, width: w, height: h, sigma: sigma, bandRows: h, on: .inTurn)
        var inline = mask
        try MaskFeather.feather(&inline, width: w, height: h, sigma: sigma, on: .inTurn)
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let spread = try await pool.run(lease: .unleased) { [mask] loop in
            var values = mask
            try MaskFeather.feather(&values, width: w, height: h, sigma: sigma, on: loop)
            return values
        }
        for (how, got) in [("inline", inline), ("on the pool", spread)] {
            let differing = zip(got, expected).filter { $0 != $1 }.count
            #expect(differing == 0, "\(w)x\(h), sigma \(sigma), \(how): \(differing) of \(got.count) bytes differ")
        }
        #expect(mask.contains(255) && mask.contains(0) && expected != mask, "the mask has edges to blur")
    }
}
