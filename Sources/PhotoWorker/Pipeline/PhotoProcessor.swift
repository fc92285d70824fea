import Foundation
import Imaging

/// The sticker app's per-photo pipeline: one decode, then sticker and palette in parallel
/// (`async let`), then the gradient sticker; files written atomically into one folder.
public struct PhotoProcessor: Sendable {
    public let services: WorkerServices
    /// What the request may read and write.
    public let access: FileAccess

    public init(services: WorkerServices, access: FileAccess) {
        self.services = services
        self.access = access
    }

    public struct Timings: Sendable, Codable, Equatable {
        public var decodeMs: Double
        public var stickerMs: Double
        public var paletteMs: Double
        public var gradientMs: Double
        public var writeMs: Double
        public var totalMs: Double
    }

    public struct FileRef: Sendable, Codable, Equatable {
        public var path: String
        public var width: Int
        public var height: Int
        public var bytes: Int
    }

    /// One processed photo.
    public struct Result: Sendable, Codable, Equatable {
        public var source: String
        public var palette: [PaletteEntry]
        public var sticker: FileRef
        public var gradientSticker: FileRef
        public var boundingBox: Box
        public var coverage: Double
        public var confidence: Double
        /// The segmenter that cut the sticker out.
        public var segmenter: Segmenter
        public var timings: Timings
    }

    /// Processes one photo into `directory` as `<name>-sticker.png` and `<name>-gradient.png`.
    ///
    /// - Parameters:
    ///   - cached: keep the decoded photo in the cache (single photos yes, batches no).
    ///   - overwrite: replace existing files that are not images (the output folder's `overwrite`).
    public func process(_ source: ImageSource, name: String, count: Int, outline: OutlineSpec?, directory: String,
                        segmenter: Segmenter = .network, cached: Bool = true, overwrite: Bool = false) async throws -> Result {
        let start = ContinuousClock.now
        let decoded = try await services.loader.load(source, access: access, cached: cached)
        let decodeMs = start.millisecondsElapsed
        let image = decoded.image

        let compute = services.compute
        async let stickerTimed = Self.timed {
            try await StickerStage.extract(image, outline: outline, segmenter: segmenter, on: compute,
                                           memory: services.activations)
        }
        async let paletteTimed = Self.timed { try await PaletteStage.palette(image, count: count, on: compute) }
        let ((sticker, used), stickerMs) = try await stickerTimed
        let (palette, paletteMs) = try await paletteTimed

        let (gradient, gradientMs) = try await Self.timed {
            try await StickerStage.gradientSticker(sticker.image, colors: palette.map(\.color), on: compute)
        }
        let writeStart = ContinuousClock.now
        let stickerPath = "\(directory)/\(name)-sticker.png"
        let gradientPath = "\(directory)/\(name)-gradient.png"
        // zlib level 3: batch outputs are written once and shared; level 6 took twice as long
        // for files about 10% smaller.
        var spec = OutputSpec(path: stickerPath, overwrite: overwrite)
        spec.compressionLevel = Self.pngCompressionLevel
        let s = try await OutputWriter.write(sticker.image, to: spec, access: access, on: compute)
        spec.path = gradientPath
        let g = try await OutputWriter.write(gradient, to: spec, access: access, on: compute)
        return Result(
            source: source.description, palette: palette,
            sticker: FileRef(path: stickerPath, width: s.width, height: s.height, bytes: s.bytes),
            gradientSticker: FileRef(path: gradientPath, width: g.width, height: g.height, bytes: g.bytes),
            boundingBox: Box(sticker.boundingBox), coverage: sticker.reportedCoverage,
            confidence: sticker.reportedConfidence, segmenter: used,
            timings: Timings(
                decodeMs: decodeMs, stickerMs: stickerMs, paletteMs: paletteMs, gradientMs: gradientMs,
                writeMs: writeStart.millisecondsElapsed, totalMs: start.millisecondsElapsed))
    }

    static let pngCompressionLevel = 3

    static func timed<T: Sendable>(_ body: () async throws -> T) async throws -> (T, Double) {
        let start = ContinuousClock.now
        let value = try await body()
        return (value, start.millisecondsElapsed)
    }

    /// A file-name stem for a source: the file's base name, else `photo`.
    public static func stem(for source: ImageSource) -> String {
        if case .path(let p) = source {
            let base = ((p as NSString).lastPathComponent as NSString).deletingPathExtension
            let safe = base.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
            if !safe.isEmpty { return String(safe) }
        }
        return "photo"
    }
}
