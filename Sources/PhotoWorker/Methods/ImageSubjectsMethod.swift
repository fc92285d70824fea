import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

/// `image.subjects {"source", "segmenter", "max", "stickers", "outline", "decontaminate"}`: the separate subjects of
/// a photo, largest first, each with its box, area, score and a point that selects it (as `subject: {"point": ...}`
/// on the sticker methods), so a UI can ask "which one?"; with `stickers`, each also as its own sticker file.
struct ImageSubjectsMethod: RPCMethod {
    static let name = "image.subjects"
    static let cost = MethodCost.compute
    static let summary = "The separate subjects of a photo (box, area, score, a point that selects each), largest first; optionally each as a sticker file."

    struct Params: Decodable, Sendable {
        var source: ImageSource
        /// `network` (default) or `classical`.
        var segmenter: Segmenter?
        /// At most this many subjects (1...32, default 8).
        var max: Int?
        /// Write each subject's sticker into this folder as `<stem>-subject-<n>.png` (n from 1, in result order).
        var stickers: OutputDirectorySpec?
        var outline: OutlineSpec?
        var decontaminate: Bool?
    }

    struct Subject: Encodable, Sendable {
        var box: Box
        var area: Double
        var score: Double
        /// [x, y]: pass as `"subject": {"point": [x, y]}` to cut this subject out.
        var point: [Int]
        var sticker: PhotoProcessor.FileRef?
    }

    struct Result: Encodable, Sendable {
        var subjects: [Subject]
        var segmenter: Segmenter
        var ms: Double
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let start = ContinuousClock.now
        let limit = params.max ?? 8
        guard (1...32).contains(limit) else { throw RPCError.invalidParams(path: "max", "must be between 1 and 32") }
        let access = await services.access()
        if let dir = params.stickers { try access.prepareDirectory(dir.dir, create: dir.create ?? true) }
        let image = try await services.loader.load(params.source, access: access).image
        let (found, segmenter) = try await StickerStage.subjects(image, outline: params.outline,
                                                                 segmenter: params.segmenter ?? .network,
                                                                 decontaminate: params.decontaminate ?? true,
                                                                 on: services.compute, memory: services.activations)
        var subjects: [Subject] = []
        let stem = PhotoProcessor.stem(for: params.source)
        for (i, s) in found.subjects.prefix(limit).enumerated() {
            var file: PhotoProcessor.FileRef?
            if let dir = params.stickers {
                let sticker = try await services.compute.run { try found.sticker(of: i, from: image).image }
                let path = "\(dir.dir)/\(stem)-subject-\(i + 1).png"
                let written = try await OutputWriter.write(sticker, to: OutputSpec(path: path, overwrite: dir.overwrite ?? false),
                                                           access: access, on: services.compute)
                file = PhotoProcessor.FileRef(path: path, width: written.width, height: written.height, bytes: written.bytes)
            }
            subjects.append(Subject(box: Box(s.box), area: (s.area * 10_000).rounded() / 10_000,
                                    score: (s.score * 1000).rounded() / 1000, point: [s.point.x, s.point.y], sticker: file))
        }
        return Result(subjects: subjects, segmenter: segmenter, ms: start.millisecondsElapsed)
    }
}
