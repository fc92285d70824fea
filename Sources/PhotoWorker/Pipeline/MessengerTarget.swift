import Compute
import Imaging

/// A messenger whose sticker rules `pack.export` can write files for (`"target"`). Its sizes, margins and limits
/// are its row of ``limits`` (``MessengerLimits``), the one table everything reads.
///
/// Each sticker is scaled and placed as the messenger requires, then encoded as WebP: lossless first (exact edges
/// and alpha), and when that file is over the messenger's size limit, lossy at quality 90, 80, ... 10 until one
/// fits. A sticker that fits at none of them is an error that names the limit and the smallest size reached.
public enum MessengerTarget: String, Sendable, Codable, CaseIterable {
    case telegram
    /// Also wants a tray icon for a pack.
    case whatsapp
    case signal

    /// The largest file the messenger accepts for one still sticker.
    public var maxBytes: Int { limits.still.maxBytes }

    /// Lossy qualities tried, in order, after a lossless file was too large.
    static let qualitySteps = [90, 80, 70, 60, 50, 40, 30, 20, 10]

    /// One sticker scaled and placed as the messenger wants it (before encoding), scaled on `loop`.
    public func layout(_ sticker: Image, on loop: some ParallelLoop) throws -> Image {
        switch limits.canvas {
        case .longSide(let side):
            let scale = Double(side) / Double(max(sticker.width, sticker.height))
            let w = max(1, min(side, Int((Double(sticker.width) * scale).rounded())))
            let h = max(1, min(side, Int((Double(sticker.height) * scale).rounded())))
            return try Resampler.resize(sticker, width: w, height: h, on: loop)
        case .square(let side, let margin):
            return try Self.centred(sticker, canvas: side, margin: margin, on: loop)
        }
    }

    /// The sticker fitted inside `canvas - 2 * margin` and centred on a transparent square canvas.
    static func centred(_ sticker: Image, canvas: Int, margin: Int, on loop: some ParallelLoop) throws -> Image {
        let inner = canvas - 2 * margin
        let scale = Double(inner) / Double(max(sticker.width, sticker.height))
        let w = max(1, min(inner, Int((Double(sticker.width) * scale).rounded())))
        let h = max(1, min(inner, Int((Double(sticker.height) * scale).rounded())))
        let fitted = try Resampler.resize(sticker, width: w, height: h, on: loop)
        var square = Image(width: canvas, height: canvas)
        Compositing.over(fitted, onto: &square, at: (canvas - w) / 2, y: (canvas - h) / 2)
        return square
    }

    /// The file for one laid-out sticker, and how it was encoded ("lossless" or "quality N").
    /// - Throws: ``WorkerError/outputFailed(path:reason:rule:)`` with rule `size-limit` when no step fits.
    public func encode(_ image: Image, path: String, on loop: some ParallelLoop) throws -> (bytes: [UInt8], encoding: String) {
        try Self.fit(limit: maxBytes, path: path, what: "\(rawValue) sticker", on: loop) { quality in
            try ImageCodec.encodeWebP(image, lossless: quality == nil, quality: quality ?? 90)
        }
    }

    /// WhatsApp's tray icon for a pack (``MessengerLimits/tray``): its first sticker fitted in the square, PNG.
    static func trayIcon(_ sticker: Image, path: String, on loop: some ParallelLoop) throws -> [UInt8] {
        // Only WhatsApp asks for one.
        let tray = MessengerTarget.whatsapp.limits.tray!
        let icon = try centred(sticker, canvas: tray.side, margin: 0, on: loop)
        return try fit(limit: tray.file.maxBytes, path: path, what: "WhatsApp tray icon", on: loop) { quality in
            // PNG has no quality; the tray icon is tiny, so one attempt decides.
            guard quality == nil else { throw ImagingError.encodingFailed(message: "PNG has no lossy step") }
            return try ImageCodec.encodePNG(icon, compressionLevel: 9, on: loop)
        }.bytes
    }

    /// Tries lossless (quality nil), then each lossy step, returning the first encoding within `limit`.
    static func fit(limit: Int, path: String, what: String, on loop: some ParallelLoop, _ encode: (Int?) throws -> [UInt8]) throws
        -> (bytes: [UInt8], encoding: String)
    {
        var smallest = Int.max
        for quality in [nil] + qualitySteps.map(Optional.some) {
            try loop.checkCancellation()
            let bytes: [UInt8]
            do {
                bytes = try encode(quality)
            } catch let error as ImagingError {
                if quality != nil, smallest < Int.max { break }
                throw WorkerError.encodingFailed(detail: error.message)
            }
            if bytes.count <= limit { return (bytes, quality.map { "quality \($0)" } ?? "lossless") }
            smallest = min(smallest, bytes.count)
        }
        throw WorkerError.outputFailed(path: path, reason:
            "the \(what) does not fit the limit of \(limit) bytes: the smallest encoding was \(smallest) bytes",
            rule: "size-limit")
    }
}
