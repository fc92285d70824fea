import Compute
import CCodecs

/// PNG encoding: 8-bit, no interlacing, no ancillary chunks (metadata is stripped); rows filtered as libpng
/// filters them, compressed by libdeflate (CCodecs' cc_png_encode.c).
///
/// Up to `CC_PNG_WHOLE_MAX` filtered bytes an image is encoded in pieces spread over the pool's idle threads
/// (the `loop` it is given): bands of rows filtered apart, and from ``splitThreshold`` bytes on, the deflate
/// data made as two segments of one stream. Where the split falls depends on the image's size alone, never on the
/// threads, so an image always encodes to the same bytes; below the threshold they are the bytes a one-piece
/// encoding gives. The loop's cancellation is polled between the pieces, and every 16 rows of a larger image's
/// streamed encoding: a cancelled encode throws `CancellationError` and writes nothing.
enum PNGEncoder {
    /// Filtered bytes from which the deflate data is made in two segments (a 512x512 RGBA image): smaller ones
    /// take a few milliseconds whole, and the first segment's walk and the second's lost dictionary are not worth it.
    static let splitThreshold = 1 << 20
    /// Rows of a band filtered by one index of a spread.
    static let bandRows = 64

    /// - Throws: `ImagingError`, or `CancellationError` when `loop` is cancelled.
    static func encode(_ image: Image, compressionLevel: Int, on loop: some ParallelLoop) throws -> [UInt8] {
        guard (0...9).contains(compressionLevel) else {
            throw ImagingError.encodingFailed(message: "PNG compression level must be 0...9, got \(compressionLevel)")
        }
        let channels: Int32 = image.isOpaque ? 3 : 4
        return try image.pixels.withUnsafeBufferPointer { pixels in
            try write(pixels, width: image.width, height: image.height, inChannels: 4, outChannels: channels,
                      level: compressionLevel, on: loop)
        }
    }

    /// - Throws: `ImagingError`, or `CancellationError` when `loop` is cancelled.
    static func encodeGray(width: Int, height: Int, gray: [UInt8], compressionLevel: Int = 6, on loop: some ParallelLoop)
        throws -> [UInt8]
    {
        guard width > 0, height > 0, pixelCount(width, height) == gray.count else {
            throw ImagingError.encodingFailed(message: "grey buffer of \(gray.count) bytes does not match \(width)x\(height)")
        }
        return try gray.withUnsafeBufferPointer { pixels in
            try write(pixels, width: width, height: height, inChannels: 1, outChannels: 1, level: compressionLevel, on: loop)
        }
    }

    /// ``encodedResult(_:width:height:inChannels:outChannels:level:splitThreshold:pieces:on:)``'s bytes, or its failure
    /// thrown: `CancellationError` when the loop was cancelled, whatever the failure (a poll's stop, or a real one such
    /// as memory that the cancelled request no longer needs told), else its `ImagingError`.
    static func write(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, inChannels: Int32,
                      outChannels: Int32, level: Int, splitThreshold: Int = splitThreshold,
                      pieces: Bool = true, on loop: some ParallelLoop) throws -> [UInt8] {
        let result = encodedResult(pixels, width: width, height: height, inChannels: inChannels, outChannels: outChannels,
                             level: level, splitThreshold: splitThreshold, pieces: pieces, on: loop)
        if case .failure = result, loop.isCancelled { throw CancellationError() }
        return try result.get()
    }

    /// - Parameters:
    ///   - splitThreshold: ``splitThreshold`` (tests lower it to join many small segments).
    ///   - pieces: false for cc_png_encode in one call (tests compare the pieces with it).
    ///   - loop: where the filtered bands and deflate segments spread.
    private static func encodedResult(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, inChannels: Int32,
                                outChannels: Int32, level: Int, splitThreshold: Int,
                                pieces: Bool, on loop: some ParallelLoop) -> Result<[UInt8], ImagingError> {
        // PNG allows 2^31-1; libpng's default write limit is 1,000,000 per side.
        guard width <= 1_000_000, height <= 1_000_000 else {
            return .failure(.encodingFailed(message: "PNG dimensions \(width)x\(height) exceed 1000000"))
        }
        let valid = width > 0 && height > 0 && (inChannels == 1 ? outChannels == 1 : inChannels == 4 && outChannels >= 3)
            && pixels.count >= width * height * Int(inChannels)
        let size = (width * Int(outChannels) + 1) * height
        guard pieces, valid, size <= Int(CC_PNG_WHOLE_MAX), let base = pixels.baseAddress else {
            return CodecCancellation.polling(loop) { check in
                encoded("PNG") { out, length, error in
                    cc_png_encode(pixels.baseAddress, UInt32(width), UInt32(height), inChannels, outChannels,
                                  Int32(level), check, &out, &length, error.baseAddress, error.count)
                }
            }
        }
        let line = width * Int(outChannels) + 1, bands = (height + bandRows - 1) / bandRows
        let buffers = Buffers(pixels: base, filtered: .allocate(capacity: size), costs: .allocate(capacity: height))
        defer {
            buffers.filtered.deallocate()
            buffers.costs.deallocate()
        }
        let filterStatus = SpreadResults<Int32>(count: bands)
        do {
            try loop.forEach(bands) { _, band in
                let y0 = band * bandRows, y1 = min(height, y0 + bandRows)
                filterStatus.set(band, cc_png_filter_rows(buffers.pixels, UInt32(width), inChannels, outChannels,
                                                          UInt32(y0), UInt32(y1), buffers.filtered + y0 * line,
                                                          buffers.costs + y0))
            }
        } catch {
            return .failure(.encodingFailed(message: "PNG encoder: \(error)"))  // the bodies do not throw
        }
        if loop.isCancelled { return .failure(.encodingFailed(message: "PNG encoding was cancelled")) }  // thrown as cancelled
        guard filterStatus.values.allSatisfy({ $0 == CC_OK }) else {
            return .failure(.encodingFailed(message: "out of memory"))
        }
        let cuts = size >= splitThreshold && height > 1 ? [0, line * cutRow(buffers.costs, rows: height, line: line), size] : [0, size]
        let segments = cuts.indices.dropLast().map { i in
            Segment(start: cuts[i], length: cuts[i + 1] - cuts[i], last: i == cuts.count - 2)
        }
        defer { for segment in segments { segment.out.deallocate() } }
        let lengths = SpreadResults<Int>(count: segments.count)
        do {
            try loop.forEach(segments.count) { _, i in
                var length = 0
                let status = cc_png_deflate_segment(buffers.filtered + segments[i].start, segments[i].length,
                                                    Int32(level), segments[i].last ? 1 : 0, segments[i].out,
                                                    segments[i].capacity, &length)
                lengths.set(i, status == CC_OK ? length : -Int(status))
            }
        } catch {
            return .failure(.encodingFailed(message: "PNG encoder: \(error)"))
        }
        let written = lengths.values
        if let failed = written.first(where: { $0 < 0 }) {
            return .failure(.encodingFailed(message: "deflate failed (status \(-failed))"))
        }
        return encoded("PNG") { out, length, _ in
            segments.map { UnsafePointer(Optional($0.out)) }.withUnsafeBufferPointer { starts in
                cc_png_assemble(UInt32(width), UInt32(height), outChannels, Int32(level), buffers.filtered, size,
                                starts.baseAddress, written, Int32(written.count), &out, &length)
            }
        }
    }

    /// The row the second segment starts at: where 47% of the rows' cost is behind (a row's cost its filtered sum
    /// of absolute values plus its length). Deflate's time follows the cost, not the bytes: a sticker's transparent
    /// rows compress at many times the speed of its subject's; the first segment, walked after it is compressed,
    /// takes the smaller share.
    static func cutRow(_ costs: UnsafePointer<UInt32>, rows: Int, line: Int) -> Int {
        let total = (0..<rows).reduce(0) { $0 + Int(costs[$1]) + line }
        var behind = 0, row = 0
        while row < rows - 1 && (behind + Int(costs[row]) + line) * 100 <= total * 47 {
            behind += Int(costs[row]) + line
            row += 1
        }
        return max(1, row)
    }

    /// One segment of the deflate data: its filtered bytes, and the buffer it is compressed into.
    ///
    /// `@unchecked Sendable` is sound here: `out` is written only by the index of the `spread` that makes this
    /// segment and read after the `spread` has returned, and freed after that.
    private struct Segment: @unchecked Sendable {
        let start: Int, length: Int, last: Bool
        let capacity: Int
        let out: UnsafeMutablePointer<UInt8>

        init(start: Int, length: Int, last: Bool) {
            (self.start, self.length, self.last) = (start, length, last)
            capacity = cc_png_segment_bound(length)
            out = .allocate(capacity: capacity)
        }
    }

    /// The source pixels, the filtered rows and their costs of one encoding, shared by its spreads.
    ///
    /// `@unchecked Sendable` is sound here: the pixels are only read; each index of the first `spread` writes only
    /// its own band of filtered rows and costs; the second reads them only after the first has returned; `spread`
    /// returns with every helper out of its body before `write` frees the buffers.
    private struct Buffers: @unchecked Sendable {
        let pixels: UnsafePointer<UInt8>
        let filtered: UnsafeMutablePointer<UInt8>
        let costs: UnsafeMutablePointer<UInt32>
    }
}
