import Compute
import Testing
@testable import Imaging

/// The PNG encoder in pieces (rows filtered in bands, the deflate data in segments of one stream): one segment is
/// the one-call encoder's bytes; two join into a stream libpng reads back to the same pixels, without warnings (a
/// segment left final would end the stream early: "truncated PNG accepted"), for ends at every bit of a byte.
@Suite(.timeLimit(.minutes(10))) struct PNGSegmentTests {
    /// A `width`x`height` image: a transparent border around a noisy, partly translucent subject (or opaque), so
    /// rows cost unevenly as a sticker's do.
    static func image(width: Int, height: Int, seed: UInt64, opaque: Bool) -> Image {
        var random = SplitMix64(seed: seed)
        var image = Image(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let i = 4 * (y * width + x)
                let inside = opaque || (x > width / 5 && x < width * 4 / 5 && y > height / 4)
                guard inside else { continue }
                let noise = UInt8(truncatingIfNeeded: random.next() >> 59)  // a little noise over gradients
                image.pixels[i] = UInt8(truncatingIfNeeded: x * 3) &+ noise
                image.pixels[i + 1] = UInt8(truncatingIfNeeded: y * 5) &+ noise
                image.pixels[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) * 7)
                image.pixels[i + 3] = opaque ? 255 : UInt8(truncatingIfNeeded: 160 + (x + y) % 96)
            }
        }
        return image
    }

    static func encode(_ image: Image, splitThreshold: Int = PNGEncoder.splitThreshold, pieces: Bool = true,
                       on loop: some ParallelLoop = .inTurn) throws -> [UInt8] {
        try image.pixels.withUnsafeBufferPointer {
            try PNGEncoder.write($0, width: image.width, height: image.height, inChannels: 4,
                                 outChannels: image.isOpaque ? 3 : 4, level: 6, splitThreshold: splitThreshold,
                                 pieces: pieces, on: loop)
        }
    }

    @Test("one segment is the one-call encoder's bytes (RGBA, RGB, grey, every level; inline and on a pool)")
    func oneSegment() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        for (width, height, opaque) in [(300, 200, false), (301, 130, true), (5, 1, false)] {
            let image = Self.image(width: width, height: height, seed: UInt64(width), opaque: opaque)
            let whole = try Self.encode(image, pieces: false)
            let inline = try Self.encode(image)
            let pooled = try await pool.run(lease: .unleased) { loop in try Self.encode(image, on: loop) }
            #expect(inline == whole, "\(width)x\(height): \(inline.count) bytes against \(whole.count)")
            #expect(pooled == whole, "\(width)x\(height) on the pool: \(pooled.count) bytes against \(whole.count)")
        }
        // The zlib header's level hint, at each of libdeflate's four.
        let image = Self.image(width: 64, height: 48, seed: 1, opaque: false)
        for level in [0, 1, 2, 5, 6, 7, 8, 9] {
            let (pieces, whole) = try image.pixels.withUnsafeBufferPointer { px in
                (try PNGEncoder.write(px, width: 64, height: 48, inChannels: 4, outChannels: 4, level: level, on: .inTurn),
                 try PNGEncoder.write(px, width: 64, height: 48, inChannels: 4, outChannels: 4, level: level,
                                      pieces: false, on: .inTurn))
            }
            #expect(pieces == whole, "level \(level): \(pieces.count) bytes against \(whole.count)")
        }
        let grey = (0..<(97 * 89)).map { UInt8(truncatingIfNeeded: $0 * 7 / 97) }
        let pieces = try grey.withUnsafeBufferPointer {
            try PNGEncoder.write($0, width: 97, height: 89, inChannels: 1, outChannels: 1, level: 6, on: .inTurn)
        }
        let whole = try grey.withUnsafeBufferPointer {
            try PNGEncoder.write($0, width: 97, height: 89, inChannels: 1, outChannels: 1, level: 6, pieces: false, on: .inTurn)
        }
        #expect(pieces == whole, "grey: \(pieces.count) bytes against \(whole.count)")
        let decoded = try ImageCodec.decode(pieces, on: .inTurn).image
        #expect(decoded.pixels.enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element == grey[$0.offset / 4] })
    }

    /// Forty sizes, so the first segment's end falls at every bit of its last byte (checked once by printing
    /// them: each of the eight occurs), and after the sixth, where the stored block's header needs another byte.
    @Test("two segments make one stream that decodes to the pixels (inline and on a pool, the same bytes)")
    func twoSegments() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        for k in 0..<40 {
            let width = 23 + 7 * k, height = 2 + (k * 13) % 41, opaque = k % 3 == 0
            let image = Self.image(width: width, height: height, seed: UInt64(k), opaque: opaque)
            let split = try Self.encode(image, splitThreshold: 0)
            let pooled = try await pool.run(lease: .unleased) { loop in try Self.encode(image, splitThreshold: 0, on: loop) }
            let whole = try Self.encode(image)
            #expect(pooled == split, "\(width)x\(height): the pool's bytes differ from inline")
            #expect(split != whole, "\(width)x\(height): not split (\(split.count) bytes, whole \(whole.count))")
            let decoded = try ImageCodec.decode(split, on: .inTurn)
            #expect(decoded.warnings.isEmpty, "\(width)x\(height): \(decoded.warnings)")
            let differing = zip(decoded.image.pixels, image.pixels).filter { $0 != $1 }.count
            #expect(decoded.image.width == width && decoded.image.height == height && differing == 0,
                    "\(width)x\(height) (opaque \(opaque)): \(decoded.image.width)x\(decoded.image.height), \(differing) bytes differ")
        }
    }

    /// Stored blocks (level 0) and the fastest and slowest levels' blocks join as well.
    @Test(arguments: [0, 1, 9])
    func twoSegmentsAtOtherLevels(level: Int) throws {
        let image = Self.image(width: 150, height: 120, seed: 9, opaque: false)
        let split = try image.pixels.withUnsafeBufferPointer {
            try PNGEncoder.write($0, width: 150, height: 120, inChannels: 4, outChannels: 4, level: level,
                                 splitThreshold: 0, on: .inTurn)
        }
        let decoded = try ImageCodec.decode(split, on: .inTurn)
        #expect(decoded.warnings.isEmpty, "level \(level): \(decoded.warnings)")
        #expect(decoded.image.pixels == image.pixels, "level \(level): the pixels differ")
    }

    /// The second segment starts where 47% of the rows' cost is behind it, never at the first or past the last row.
    @Test func theCutFollowsTheCost() {
        let line = 10
        var costs: [UInt32] = [0, 0, 0, 0, 100, 100, 100, 100]  // cost 10 a row for its length, 110 where busy
        #expect(PNGEncoder.cutRow(&costs, rows: 8, line: line) == 5, "total 480: 47% is 225.6, four quiet rows and a busy one")
        costs = [0, 0]
        #expect(PNGEncoder.cutRow(&costs, rows: 2, line: line) == 1)
        costs = [1000, 0, 0]
        #expect(PNGEncoder.cutRow(&costs, rows: 3, line: line) == 1, "never before the first row's end")
    }
}
