import Compute
import Foundation
import Imaging

/// The sticker app's per-photo pipeline: one decode, then sticker and palette in parallel
/// (`async let`), then the cut-out written and the gradient sticker made from it and written; files written
/// atomically into one folder.
public struct PhotoProcessor: Sendable {
    public let services: WorkerServices
    /// What the request may read and write.
    public let access: FileAccess
    /// The job every photo's pixel work runs as (a batch's photos share their request's).
    public let compute: ComputeJob

    public init(services: WorkerServices, access: FileAccess, compute: ComputeJob) {
        self.services = services
        self.access = access
        self.compute = compute
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
        /// Why it is that one, or what it ran without (``Segmenter/reason(asked:)``); absent when nothing is missing.
        public var segmenterReason: String?
        public var timings: Timings
    }

    /// Processes one photo into `directory` as `<name>-sticker.png` and `<name>-gradient.png`.
    ///
    /// - Parameters:
    ///   - cached: keep the decoded photo in the cache (single photos yes, batches no).
    ///   - overwrite: replace existing files that are not images (the output folder's `overwrite`).
    public func process(_ source: ImageSource, name: String, count: Int, outline: OutlineSpec?, directory: String,
                        segmenter: Segmenter = .network, cached: Bool = true, overwrite: Bool = false,
                        cut spec: StickerCutSpec = .init()) async throws -> Result {
        let start = ContinuousClock.now
        let (image, cut) = try await cutOut(source, count: count, outline: outline, segmenter: segmenter,
                                            cached: cached, spec: spec)
        let written = try await write(consume image, palette: cut.palette, overwrite: overwrite,
                                      stickerPath: "\(directory)/\(name)-sticker.png",
                                      gradientPath: "\(directory)/\(name)-gradient.png")
        return Result(
            source: source.description, palette: cut.palette,
            sticker: written.sticker, gradientSticker: written.gradient,
            boundingBox: Box(cut.boundingBox), coverage: cut.coverage, confidence: cut.confidence,
            segmenter: cut.segmenter, segmenterReason: cut.segmenter.reason(asked: segmenter),
            timings: Timings(
                decodeMs: cut.decodeMs, stickerMs: cut.stickerMs, paletteMs: cut.paletteMs,
                gradientMs: written.gradientMs, writeMs: written.writeMs, totalMs: start.millisecondsElapsed))
    }

    static let pngCompressionLevel = 3

    /// What `process` keeps of a photo beside its cut-out once its sticker and palette are made.
    struct CutOut: Sendable {
        var palette: [PaletteEntry]
        var boundingBox: PixelRect
        var coverage: Double, confidence: Double
        var segmenter: Segmenter
        var decodeMs: Double, stickerMs: Double, paletteMs: Double
    }

    /// One decode, then sticker and palette in parallel. The decoded photo and the sticker's full-size mask end
    /// with this call, so a batch's photos hold only their cut-outs while they are encoded (about 11 MB less for
    /// a 1800x1200 photo at that stage).
    private func cutOut(_ source: ImageSource, count: Int, outline: OutlineSpec?, segmenter: Segmenter,
                        cached: Bool, spec: StickerCutSpec) async throws -> (Image, CutOut) {
        let start = ContinuousClock.now
        let image = try await services.loader.load(source, access: access, cached: cached, on: compute).image
        let decodeMs = start.millisecondsElapsed
        let compute = self.compute
        async let stickerTimed = Self.timed {
            try await StickerStage.extract(image, outline: outline, segmenter: segmenter, on: compute,
                                           memory: services.activations, cut: spec)
        }
        async let paletteTimed = Self.timed { try await PaletteStage.palette(image, count: count, on: compute) }
        let ((sticker, used), stickerMs) = try await stickerTimed
        let (palette, paletteMs) = try await paletteTimed
        return (sticker.image, CutOut(palette: palette, boundingBox: sticker.boundingBox,
                                      coverage: sticker.reportedCoverage, confidence: sticker.reportedConfidence,
                                      segmenter: used, decodeMs: decodeMs, stickerMs: stickerMs, paletteMs: paletteMs))
    }

    /// Writes the cut-out, then makes and writes its gradient sticker: the cut-out ends before the gradient is
    /// encoded, so at most two images, or one and its encoding's buffers, are alive at once.
    private func write(_ sticker: consuming Image, palette: [PaletteEntry], overwrite: Bool, stickerPath: String,
                       gradientPath: String) async throws
        -> (sticker: FileRef, gradient: FileRef, gradientMs: Double, writeMs: Double) {
        let compute = self.compute
        // zlib level 3: batch outputs are written once and shared; level 6 took twice as long
        // for files about 10% smaller.
        var spec = OutputSpec(path: stickerPath, overwrite: overwrite)
        spec.compressionLevel = Self.pngCompressionLevel
        let writeStart = ContinuousClock.now
        let s = try await OutputWriter.write(sticker, to: spec, access: access, on: compute)
        var writeMs = writeStart.millisecondsElapsed
        let (gradient, gradientMs) = try await Self.timed { [sticker] in
            try await StickerStage.gradientSticker(sticker, colors: palette.map(\.color), on: compute)
        }
        _ = consume sticker
        spec.path = gradientPath
        let gradientStart = ContinuousClock.now
        let g = try await OutputWriter.write(gradient, to: spec, access: access, on: compute)
        writeMs += gradientStart.millisecondsElapsed
        return (FileRef(path: stickerPath, width: s.width, height: s.height, bytes: s.bytes),
                FileRef(path: gradientPath, width: g.width, height: g.height, bytes: g.bytes), gradientMs, writeMs)
    }

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
