import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

/// `pack.export {"stickers" | "sources", "columns", "cellSize", "padding", "background", "output", "filesDir",
/// "target"}`: the app's sticker grid as one sheet, and optionally each sticker as its own file for sharing: PNG,
/// or with a `target` (``MessengerTarget``) WebP files made to the messenger's size and byte limits.
struct PackExportMethod: RPCMethod {
    static let name = "pack.export"
    static let cost = MethodCost.compute
    static let summary = "Lay stickers out on one sheet; optionally export each sticker as a file, ready for Telegram, WhatsApp or Signal."

    struct Params: Decodable, Sendable {
        /// Ready-made stickers (RGBA images).
        var stickers: [ImageSource]?
        /// Photos to cut stickers from first.
        var sources: [ImageSource]?
        var outline: OutlineSpec?
        /// `network` (default) or `classical` (see ``Segmenter``).
        var segmenter: Segmenter?
        var columns: Int?
        var cellSize: Int?
        var padding: Int?
        /// `#RRGGBB[AA]` or `transparent` (default).
        var background: String?
        var output: OutputSpec
        var filesDir: String?
        /// Write the files in `filesDir` the way this messenger takes stickers.
        var target: MessengerTarget?
    }

    struct Result: Encodable, Sendable {
        var output: OutputResult
        var count: Int
        var columns: Int
        var rows: Int
        var files: [String]?
        /// With a `target`: what was written for the messenger.
        var target: TargetResult?
        var ms: Double
    }

    /// The messenger files of an export.
    struct TargetResult: Encodable, Sendable {
        var name: MessengerTarget
        /// The messenger's limit for one sticker file.
        var maxBytes: Int
        /// The largest sticker file written.
        var largestBytes: Int
        /// How each file was encoded, in `files` order: "lossless" or "quality N" (stepped down to fit).
        var encodings: [String]
        /// WhatsApp's 96x96 PNG tray icon.
        var tray: String?
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let access = await services.access()
        let start = ContinuousClock.now
        let (items, fromPhotos) = try Self.items(params)
        let cell = params.cellSize ?? 256
        guard (16...4096).contains(cell) else { throw RPCError.invalidParams(path: "cellSize", "must be between 16 and 4096") }
        let padding = params.padding ?? cell / 16
        guard padding >= 0, padding * 2 < cell else { throw RPCError.invalidParams(path: "padding", "must be at least 0 and less than half the cell") }
        let columns = params.columns ?? Int(Double(items.count).squareRoot().rounded(.up))
        guard (1...256).contains(columns) else { throw RPCError.invalidParams(path: "columns", "must be between 1 and 256") }
        let layout = StickerSheet(columns: columns, cellSize: cell, padding: padding, background: try Self.background(params.background))
        let (sheetWidth, sheetHeight) = layout.size(for: items.count)
        guard sheetWidth * sheetHeight <= services.options.maxPixels else {
            throw RPCError.invalidParams(path: "cellSize", "the sheet (\(sheetWidth)x\(sheetHeight)) would exceed the pixel limit")
        }
        if params.target != nil && params.filesDir == nil {
            throw RPCError.invalidParams(path: "target", "needs \"filesDir\", the folder the messenger's files go to")
        }
        if let dir = params.filesDir { try access.prepareDirectory(dir, create: true) }

        let stickers = try await loadStickers(items, fromPhotos: fromPhotos, outline: params.outline,
                                          segmenter: params.segmenter ?? .network, access: access, context: context)
        let filesDir = params.filesDir
        let outputSpec = params.output
        let target = params.target
        // Composition, encoding and file writes are pixel work: on the compute threads.
        let (output, files, targetResult) = try await services.compute.run { () throws -> (OutputResult, [String]?, TargetResult?) in
            let sheet = try layout.compose(stickers)
            var files: [String]?
            var targetResult: TargetResult?
            if let dir = filesDir, let target {
                (files, targetResult) = try Self.writeForMessenger(stickers, target: target, dir: dir,
                                                                   overwrite: outputSpec.overwrite, access: access)
            } else if let dir = filesDir {
                files = try stickers.enumerated().map { i, s in
                    let path = Self.stickerFile(dir, i, "png")
                    _ = try OutputWriter.write(s, to: OutputSpec(path: path, overwrite: outputSpec.overwrite), access: access)
                    return path
                }
            }
            return (try OutputWriter.write(sheet, to: outputSpec, access: access), files, targetResult)
        }
        return Result(output: output, count: stickers.count, columns: columns, rows: layout.rows(for: stickers.count),
                      files: files, target: targetResult,
                      ms: start.millisecondsElapsed)
    }

    static func stickerFile(_ dir: String, _ index: Int, _ ext: String) -> String {
        "\(dir)/sticker-\(String(format: "%03d", index + 1)).\(ext)"
    }

    /// Lays out and encodes every sticker for the messenger (each within its byte limit), then WhatsApp's tray icon;
    /// returns the sticker files' paths and what was written.
    static func writeForMessenger(_ stickers: [Image], target: MessengerTarget, dir: String, overwrite: Bool,
                                  access: FileAccess) throws -> ([String], TargetResult) {
        var files: [String] = []
        var encodings: [String] = []
        var largest = 0
        for (i, sticker) in stickers.enumerated() {
            let path = stickerFile(dir, i, "webp")
            let (bytes, encoding) = try target.encode(try target.layout(sticker), path: path)
            try access.writeAtomically(bytes, to: path, overwrite: overwrite)
            files.append(path)
            encodings.append(encoding)
            largest = max(largest, bytes.count)
        }
        var tray: String?
        if target == .whatsapp, let first = stickers.first {
            let path = "\(dir)/tray.png"
            try access.writeAtomically(try MessengerTarget.trayIcon(first, path: path), to: path, overwrite: overwrite)
            tray = path
        }
        return (files, TargetResult(name: target, maxBytes: target.maxBytes, largestBytes: largest, encodings: encodings, tray: tray))
    }

    static func items(_ p: Params) throws -> ([ImageSource], Bool) {
        switch (p.stickers, p.sources) {
        case (let s?, nil):
            guard !s.isEmpty else { throw RPCError.invalidParams(path: "stickers", "must not be empty") }
            guard s.count <= 1000 else { throw RPCError.invalidParams(path: "stickers", "at most 1000") }
            return (s, false)
        case (nil, let s?):
            guard !s.isEmpty else { throw RPCError.invalidParams(path: "sources", "must not be empty") }
            guard s.count <= 1000 else { throw RPCError.invalidParams(path: "sources", "at most 1000") }
            return (s, true)
        default:
            throw RPCError.invalidParams(path: "stickers", "give exactly one of stickers or sources")
        }
    }

    static func background(_ s: String?) throws -> RGBA {
        guard let s, s.lowercased() != "transparent" else { return RGBA(r: 0, g: 0, b: 0, a: 0) }
        guard let c = RGBA(hex: s) else { throw RPCError.invalidParams(path: "background", "must be #RRGGBB, #RRGGBBAA or transparent") }
        return c
    }

    /// Loads (or cuts out) every sticker, in parallel within the job limit, in input order.
    private func loadStickers(_ items: [ImageSource], fromPhotos: Bool, outline: OutlineSpec?, segmenter: Segmenter,
                              access: FileAccess,
                              context: RequestContext) async throws -> [Image] {
        let loader = services.loader
        let compute = services.compute, activations = services.activations
        let width = services.maxJobs
        var out = [Image?](repeating: nil, count: items.count)
        var done = 0
        try await BoundedTaskGroup.run(count: items.count, width: width) { i in
            let image = try await loader.load(items[i], access: access).image
            guard fromPhotos else { return image }
            return try await StickerStage.extract(image, outline: outline ?? OutlineSpec(width: 8), segmenter: segmenter,
                                                  on: compute,
                                                  memory: activations).sticker.image
        } handle: { i, outcome in
            out[i] = try outcome.get()  // the first failure fails the export
            done += 1
            await context.progress(done: done, total: items.count, message: fromPhotos ? "cut out" : "loaded")
        }
        return out.map { $0! }
    }
}
