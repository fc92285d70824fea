import Compute
import Imaging

/// A messenger whose sticker rules `pack.export` can write files for (`"target"`).
///
/// Each sticker is scaled and placed as the messenger requires, then encoded as WebP: lossless first (exact edges
/// and alpha), and when that file is over the messenger's size limit, lossy at quality 90, 80, ... 10 until one
/// fits. A sticker that fits at none of them is an error that names the limit and the smallest size reached.
public enum MessengerTarget: String, Sendable, Codable, CaseIterable {
    /// Telegram: 512 px on the long side (the other side at most 512), PNG or WebP, at most 512 KB.
    case telegram
    /// WhatsApp: 512x512 WebP with the sticker inside a 16 px margin, at most 100 KB; plus a 96x96 PNG tray icon
    /// (at most 50 KB).
    case whatsapp
    /// Signal: 512x512 WebP, at most 300 KB (Signal's documented limit for a static sticker).
    case signal

    /// The largest file the messenger accepts for one sticker.
    public var maxBytes: Int {
        switch self {
        case .telegram: return 512 * 1024
        case .whatsapp: return 100 * 1024
        case .signal: return 300 * 1024
        }
    }

    /// WhatsApp's tray icon: side and size limit.
    static let traySide = 96
    static let trayMaxBytes = 50 * 1024

    /// Lossy qualities tried, in order, after a lossless file was too large.
    static let qualitySteps = [90, 80, 70, 60, 50, 40, 30, 20, 10]

    /// One sticker scaled and placed as the messenger wants it (before encoding).
    public func layout(_ sticker: Image) throws -> Image {
        switch self {
        case .telegram:
            let scale = 512 / Double(max(sticker.width, sticker.height))
            let w = max(1, min(512, Int((Double(sticker.width) * scale).rounded())))
            let h = max(1, min(512, Int((Double(sticker.height) * scale).rounded())))
            return try Resampler.resize(sticker, width: w, height: h)
        case .whatsapp:
            return try Self.centred(sticker, canvas: 512, margin: 16)
        case .signal:
            return try Self.centred(sticker, canvas: 512, margin: 0)
        }
    }

    /// The sticker fitted inside `canvas - 2 * margin` and centred on a transparent square canvas.
    static func centred(_ sticker: Image, canvas: Int, margin: Int) throws -> Image {
        let inner = canvas - 2 * margin
        let scale = Double(inner) / Double(max(sticker.width, sticker.height))
        let w = max(1, min(inner, Int((Double(sticker.width) * scale).rounded())))
        let h = max(1, min(inner, Int((Double(sticker.height) * scale).rounded())))
        let fitted = try Resampler.resize(sticker, width: w, height: h)
        var square = Image(width: canvas, height: canvas)
        Compositing.over(fitted, onto: &square, at: (canvas - w) / 2, y: (canvas - h) / 2)
        return square
    }

    /// The file for one laid-out sticker, and how it was encoded ("lossless" or "quality N").
    /// - Throws: ``WorkerError/outputFailed(path:reason:rule:)`` with rule `size-limit` when no step fits.
    public func encode(_ image: Image, path: String) throws -> (bytes: [UInt8], encoding: String) {
        try Self.fit(limit: maxBytes, path: path, what: "\(rawValue) sticker") { quality in
            try ImageCodec.encodeWebP(image, lossless: quality == nil, quality: quality ?? 90)
        }
    }

    /// WhatsApp's tray icon for a pack: its first sticker fitted in 96x96, PNG.
    static func trayIcon(_ sticker: Image, path: String) throws -> [UInt8] {
        let icon = try centred(sticker, canvas: traySide, margin: 0)
        return try fit(limit: trayMaxBytes, path: path, what: "WhatsApp tray icon") { quality in
            // PNG has no quality; the tray icon is tiny, so one attempt decides.
            guard quality == nil else { throw ImagingError.encodingFailed(message: "PNG has no lossy step") }
            return try ImageCodec.encodePNG(icon, compressionLevel: 9)
        }.bytes
    }

    /// Tries lossless (quality nil), then each lossy step, returning the first encoding within `limit`.
    static func fit(limit: Int, path: String, what: String, _ encode: (Int?) throws -> [UInt8]) throws
        -> (bytes: [UInt8], encoding: String)
    {
        var smallest = Int.max
        for quality in [nil] + qualitySteps.map(Optional.some) {
            try Cancellation.check()
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
