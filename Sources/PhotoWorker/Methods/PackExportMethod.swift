import Compute
import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

/// `pack.export {"stickers" | "sources", "columns", "cellSize", "padding", "background", "output", "filesDir",
/// "target", "subjects", "decontaminate", "animated"}`: the app's sticker grid as one sheet, and optionally each
/// sticker as its own file for sharing: PNG, or with a `target` (``MessengerTarget``) WebP files made to the
/// messenger's size and byte limits; with `animated`, the clips among `sources` as animated stickers (a Telegram video
/// pack, an animated WhatsApp or Signal pack). A Live Photo among `sources` (its clip given as `motion` or found by
/// name: ``LivePhotoPairing``) is one sticker: its clip's with `animated`, its still's without.
struct PackExportMethod: RPCMethod {
    static let name = "pack.export"
    static let cost = MethodCost.compute
    static let summary = "Lay stickers out on one sheet; optionally export each sticker as a file, ready for Telegram, WhatsApp or Signal with `target`."

    struct Params: Decodable, Sendable {
        /// Ready-made stickers (RGBA images).
        var stickers: [ImageSource]?
        /// Photos (and clips, and Live Photos) to cut stickers from first.
        var sources: [BatchSource]?
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
        /// Per source, which subject (``SubjectSpec``, null for the main one); as many as `sources`; only with `sources`.
        var subjects: [SubjectSpec?]?
        /// The soft edge in the subject's own estimated colour (default true); false keeps the photo's colours.
        var decontaminate: Bool?
        /// With `filesDir`: each motion source is cut as an animated sticker (``AnimatedSpec``, fitted to `target`), and
        /// each animated sticker among `stickers` fitted again; its first frame on the sheet.
        var animated: AnimatedSpec?
        /// How many stickers are made at once: the job limit, or fewer where the memory budget holds fewer (set by
        /// the estimate, never by the client).
        var width: Int?

        private enum CodingKeys: String, CodingKey {
            case stickers, sources, outline, segmenter, columns, cellSize, padding, background, output, filesDir, target,
                 subjects, decontaminate, animated
        }
    }

    struct Result: Encodable, Sendable {
        var output: OutputResult
        var count: Int
        var columns: Int
        var rows: Int
        var files: [String]?
        /// With a `target`: what was written for the messenger.
        var target: TargetResult?
        /// The Live Photos among `sources`, when there are any.
        var paired: [LivePhotoPairing.Pair]?
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
        let compute = services.computeJob(for: context)
        let access = await services.access()
        let start = ContinuousClock.now
        let checked = try Self.checked(params, maxPixels: services.options.maxPixels)
        let fromPhotos = checked.fromPhotos
        // A Live Photo's clip listed beside its still is not a sticker of its own: the sheet lays out the items.
        let pairing = Self.pairing(checked.items, fromPhotos: fromPhotos, access: access)
        var items = pairing.items
        let layout = try Self.layout(params, count: items.count, maxPixels: services.options.maxPixels)
        if let dir = params.filesDir { try access.prepareDirectory(dir, create: true) }
        // After the files' folder is made: the sheet may go in it.
        try OutputCheck.check(params.output, access: access)

        // The background filled on a compute thread: a sheet may be up to the pixel limit.
        let count = items.count
        let canvas = try await compute.run { SheetCanvas(layout, count: count) }
        let fileSpec = params.filesDir.map { FileSpec(dir: $0, target: params.target, overwrite: params.output.overwrite) }
        let cuts = try StickerCutSpec.perSource(params.subjects, count: checked.items.count,
                                                      decontaminate: StickerCutSpec.decontaminateParam.value(params.decontaminate))
        let animated = try Self.animated(params)
        // WhatsApp takes a pack of animated stickers or of still ones, not both: its sources are looked at before
        // any is cut. Other packs look at each source as its turn comes.
        var motion: [Bool]?
        if animated != nil && params.target == .whatsapp {
            var found: [Bool] = [], held = 0
            for (i, item) in items.enumerated() {
                // A Live Photo moves by its clip.
                guard item.motion == nil else {
                    found.append(true)
                    continue
                }
                let probe = await services.loader.probeMotion(item.source, access: access, on: compute)
                found.append(probe.moves)
                // The items are held until the export ends, so only clips' downloads are kept for their cuts, up to
                // a budget; the rest are fetched again when their turn comes.
                if probe.moves, case .fetched(_, let bytes) = probe.source, held + bytes.count <= Self.heldDownloads {
                    items[i].source = probe.source
                    held += bytes.count
                }
            }
            if found.contains(true), let still = found.firstIndex(of: false) {
                var reason = "a WhatsApp pack is all animated or all still: this source is a still among clips"
                if case .path(let p) = items[still].source, LivePhoto.isStill(p) {
                    reason += "; for a Live Photo, pass its clip as `motion` (or keep it beside the still with its name: IMG_1234.MOV)"
                }
                throw RPCError.invalidParams(path: "\(fromPhotos ? "sources" : "stickers")[\(items[still].index)]", reason)
            }
            motion = found
        }
        let files = try await makeStickers(items, width: params.width ?? services.maxJobs, fromPhotos: fromPhotos,
                                           outline: params.outline, cuts: cuts,
                                           segmenter: params.segmenter ?? .network, animated: animated, motion: motion,
                                           canvas: canvas, files: fileSpec, access: access, compute: compute, context: context)
        let outputSpec = params.output
        let sheet = canvas.take()
        let output = try await compute.run { loop in try OutputWriter.write(sheet, to: outputSpec, access: access, on: loop) }
        var targetResult: TargetResult?
        if let target = params.target, let files, let dir = params.filesDir {
            targetResult = TargetResult(name: target,
                                        maxBytes: files.contains(where: \.animated) ? target.animatedMaxBytes : target.maxBytes,
                                        largestBytes: files.map(\.bytes).max() ?? 0, encodings: files.map(\.encoding),
                                        tray: target == .whatsapp ? Self.trayFile(dir) : nil)
        }
        return Result(output: output, count: items.count, columns: layout.columns, rows: layout.rows(for: items.count),
                      files: files?.map(\.path), target: targetResult,
                      paired: pairing.pairs.isEmpty ? nil : pairing.pairs, ms: start.millisecondsElapsed)
    }

    /// The pack's items: `sources` paired into Live Photos (``LivePhotoPairing``); ready-made `stickers` as given.
    static func pairing(_ given: [BatchSource], fromPhotos: Bool, access: FileAccess) -> LivePhotoPairing {
        guard fromPhotos else {
            return LivePhotoPairing(items: given.enumerated().map { .init(index: $0, source: $1.source) }, pairs: [])
        }
        return LivePhotoPairing.pair(given, access: access)
    }

    /// `animated` checked, with the pack's target: nil without it.
    /// - Throws: -32602 when it is given without `filesDir`, with a target of its own, or with a setting
    ///   `image.animatedSticker` would refuse (`animated.size`, ...).
    static func animated(_ params: Params) throws -> AnimatedSpec? {
        guard var animated = params.animated else { return nil }
        guard params.filesDir != nil else {
            throw RPCError.invalidParams(path: "animated", "needs \"filesDir\": an animated sticker is a file of its own")
        }
        guard animated.target == nil else { throw RPCError.invalidParams(path: "animated.target", "the pack's own target applies") }
        animated.target = params.target
        try animated.validate()
        return animated
    }

    static func stickerFile(_ dir: String, _ index: Int, _ ext: String) -> String {
        "\(dir)/sticker-\(String(format: "%03d", index + 1)).\(ext)"
    }

    static func trayFile(_ dir: String) -> String { "\(dir)/tray.png" }

    /// Where each sticker's own file goes.
    struct FileSpec: Sendable {
        var dir: String
        var target: MessengerTarget?
        var overwrite: Bool
    }

    /// The most bytes of a WhatsApp pack's clips, fetched to tell clips from stills, kept for their cuts.
    static let heldDownloads = 64 << 20

    /// One sticker's file as written.
    struct WrittenFile: Sendable {
        var path: String
        var bytes: Int
        /// "lossless" or "quality N" for a messenger's WebP, "png" otherwise; an animated sticker's fitted encoding
        /// ("quality Q, F fps, L s: B bytes") or its format.
        var encoding: String
        /// An animated sticker's file.
        var animated = false
    }

    /// Writes sticker `index`'s own file: a PNG, or laid out and encoded for the messenger within its byte limit
    /// (and for WhatsApp the first sticker also as the 96x96 tray icon).
    static func writeFile(_ sticker: Image, index: Int, spec: FileSpec, access: FileAccess, on loop: some ParallelLoop) throws -> WrittenFile {
        guard let target = spec.target else {
            let path = stickerFile(spec.dir, index, "png")
            let written = try OutputWriter.write(sticker, to: OutputSpec(path: path, overwrite: spec.overwrite),
                                                 access: access, on: loop)
            return WrittenFile(path: path, bytes: written.bytes, encoding: "png")
        }
        let path = stickerFile(spec.dir, index, "webp")
        let (bytes, encoding) = try target.encode(try target.layout(sticker, on: loop), path: path, on: loop)
        try access.writeAtomically(bytes, to: path, overwrite: spec.overwrite, on: loop)
        try writeTray(from: sticker, index: index, spec: spec, access: access, on: loop)
        return WrittenFile(path: path, bytes: bytes.count, encoding: encoding)
    }

    /// WhatsApp's 96x96 tray icon, made from sticker `index` when it is the first (an animated one's first frame).
    static func writeTray(from sticker: Image, index: Int, spec: FileSpec, access: FileAccess, on loop: some ParallelLoop) throws {
        guard spec.target == .whatsapp && index == 0 else { return }
        let tray = trayFile(spec.dir)
        try access.writeAtomically(try MessengerTarget.trayIcon(sticker, path: tray, on: loop), to: tray,
                                   overwrite: spec.overwrite, on: loop)
    }

    static func items(_ p: Params) throws -> ([BatchSource], Bool) {
        switch (p.stickers, p.sources) {
        case (let s?, nil):
            guard !s.isEmpty else { throw RPCError.invalidParams(path: "stickers", "must not be empty") }
            guard s.count <= Self.maxItems else { throw RPCError.invalidParams(path: "stickers", "at most \(Self.maxItems)") }
            return (s.map { BatchSource($0) }, false)
        case (nil, let s?):
            guard !s.isEmpty else { throw RPCError.invalidParams(path: "sources", "must not be empty") }
            guard s.count <= Self.maxItems else { throw RPCError.invalidParams(path: "sources", "at most \(Self.maxItems)") }
            return (s, true)
        default:
            throw RPCError.invalidParams(path: "stickers", "give exactly one of stickers or sources")
        }
    }

    /// What an absent `background` means: the sheet's empty cells stay clear.
    static let defaultBackground = "transparent"

    static func background(_ given: String?) throws -> RGBA {
        let s = given ?? defaultBackground
        guard s.lowercased() != "transparent" else { return RGBA(r: 0, g: 0, b: 0, a: 0) }
        guard let c = RGBA(hex: s) else { throw RPCError.invalidParams(path: "background", "must be #RRGGBB, #RRGGBBAA or transparent") }
        return c
    }

    /// Loads (or cuts out) every sticker, in parallel within the job limit, and as each is made places it on the
    /// canvas and writes its file (on the compute threads): an export holds the sheet and the stickers in flight,
    /// never every sticker at full size (200 photos as stickers held 1 GB that way). Returns the files in input
    /// order, nil without a files folder.
    /// With `animated`, the items that move are made animated stickers (cut from a clip among `sources`, or a
    /// ready-made one among `stickers` fitted again), each written to its file and its first frame placed: those
    /// `motion` marks, or without it each item as its turn comes (a URL fetched once, for either path).
    private func makeStickers(_ items: [LivePhotoPairing.Item], width: Int, fromPhotos: Bool, outline: OutlineSpec?, cuts: [StickerCutSpec],
                              segmenter: Segmenter, animated: AnimatedSpec?, motion: [Bool]?,
                              canvas: SheetCanvas, files spec: FileSpec?, access: FileAccess, compute: ComputeJob,
                              context: RequestContext) async throws -> [WrittenFile]? {
        let services = services, loader = services.loader
        let activations = services.activations
        var files = [WrittenFile?](repeating: nil, count: items.count)
        // Progress goes out in order through one stream, ended (and sent) before the files are listed.
        let heartbeat = BatchHeartbeat<Int>(context: context, total: items.count, itemMessage: fromPhotos ? "cut out" : "loaded")
        async let forwarded: Void = heartbeat.forward()
        defer { heartbeat.finish() }
        try await BoundedTaskGroup.run(count: items.count, width: width) { i -> WrittenFile? in
            var item = items[i].source, moves = false
            let clip = items[i].motion, index = items[i].index  // index: the item's place in `sources`
            if animated != nil {
                if let motion {
                    moves = motion[i]
                } else if clip != nil {
                    moves = true  // a Live Photo moves by its clip
                } else {
                    (moves, item) = await loader.probeMotion(item, access: access, on: compute)
                }
            }
            if let animated, moves, let spec {
                let path = Self.stickerFile(spec.dir, i, animated.format.fileExtension)
                let request = animated.params(source: item, motion: clip, path: path, overwrite: spec.overwrite,
                                              outline: .orStandard(outline), cut: cuts[index])
                // A ready-made animated sticker (`stickers`) is laid out and fitted again, not cut.
                let (made, first) = try await ImageAnimatedStickerMethod.make(
                    request, services: services, access: access, compute: compute, subjectPath: cuts[index].subjectPath,
                    sourcePath: "\(fromPhotos ? "sources" : "stickers")[\(index)]", motionPath: "sources[\(index)].motion",
                    paramPath: AnimatedSpec.paramPath, cutsSubject: fromPhotos,
                    progress: heartbeat.clip("\(fromPhotos ? "sources" : "stickers")[\(index)]"))
                return try await compute.run { loop in
                    try canvas.place(first, at: i, on: loop)
                    try Self.writeTray(from: first, index: i, spec: spec, access: access, on: loop)
                    return WrittenFile?(WrittenFile(path: path, bytes: made.output.bytes,
                                                    encoding: made.target?.encoding ?? animated.format.rawValue,
                                                    animated: true))
                }
            }
            // The photo a sticker is cut from ends with its cut: only the cut-out is held while it is placed. A
            // batch's decodes bypass the cache, as photos.process's do.
            let sticker = fromPhotos
                ? try await StickerStage.extract(try await loader.load(item, access: access, cached: false, on: compute).image,
                                                 outline: .orStandard(outline), segmenter: segmenter,
                                                 on: compute, memory: activations, cut: cuts[index]).sticker.image
                : try await loader.load(item, access: access, cached: false, on: compute).image
            return try await compute.run { loop in
                try canvas.place(sticker, at: i, on: loop)
                return try spec.map { try Self.writeFile(sticker, index: i, spec: $0, access: access, on: loop) }
            }
        } handle: { i, outcome in
            files[i] = try outcome.get()  // the first failure fails the export
            heartbeat.itemEnded()
        }
        heartbeat.finish()
        await forwarded
        return spec.map { _ in files.map { $0! } }
    }
}

extension PackExportMethod {
    static let contract: MethodContract = #"""
        {
          "params": [
            {
              "name": "stickers",
              "schema": {
                "type": "array",
                "items": {"$ref": "#/components/schemas/Source"},
                "minItems": 1,
                "maxItems": \#(Self.maxItems)
              },
              "required": false,
              "description": "Ready stickers; or give sources."
            },
            {
              "name": "sources",
              "schema": {
                "type": "array",
                "items": {"$ref": "#/components/schemas/BatchSource"},
                "minItems": 1,
                "maxItems": \#(Self.maxItems)
              },
              "required": false,
              "description": "Photos to cut stickers from first (and clips, with `animated`). A Live Photo is its still with its clip as `motion`, or the still's path alone (or beside its clip's) when the clip has its name: IMG_1234.HEIC or .JPG with IMG_1234.MOV or .MP4 (any case) in its folder. It is one sticker: its clip's with `animated`, its still's without; `paired` in the result lists each, `count` counts stickers."
            },
            {"name": "outline", "schema": {"$ref": "#/components/schemas/Outline"}, "required": false},
            \#(Self.columns.entry()),
            \#(Self.cellSize.entry()),
            \#(Self.padding.entry()),
            {
              "name": "background",
              "schema": {"type": "string", "default": "\#(Self.defaultBackground)", "description": "#RRGGBB, #RRGGBBAA or transparent."},
              "required": false
            },
            {"name": "output", "schema": {"$ref": "#/components/schemas/Output"}, "required": true},
            {
              "name": "filesDir",
              "schema": {"type": "string"},
              "required": false,
              "description": "Also write each sticker here as sticker-NNN.png (sticker-NNN.webp with `target`)."
            },
            {
              "name": "segmenter",
              "schema": {"$ref": "#/components/schemas/Segmenter"},
              "description": "`network` (default) or `classical`. Only with `sources` (photos cut out here)."
            },
            {
              "name": "target",
              "schema": {"type": "string", "enum": [\#(ContractSchema.list(MessengerTarget.allCases.map(\.rawValue)))]},
              "description": "Write the files in `filesDir` as this messenger takes stickers: \#(MessengerLimits.stillSentence). Lossless when it fits, else lossy at quality 90, 80, ... 10; a sticker that fits at none is -32005 with data.rule \"size-limit\". Needs filesDir.",
              "required": false
            },
            {
              "name": "subjects",
              "schema": {
                "type": "array",
                "items": {"oneOf": [{"$ref": "#/components/schemas/Subject"}, {"type": "null"}]}
              },
              "required": false,
              "description": "Per source, in `sources` order, which subject to cut out (null: the main subject); as many entries as sources."
            },
            \#(StickerCutSpec.decontaminateParam.entry()),
            {
              "name": "animated",
              "schema": {"$ref": "#/components/schemas/Animated"},
              "required": false,
              "description": "With filesDir: each motion source among sources (a video, or a GIF or WebP of more than one frame) is cut as image.animatedSticker cuts it, and each animated sticker among stickers (a WebM with alpha, an animated WebP or GIF; an APNG is read as its first frame) is taken as it is, its alpha its edge; either is fitted to `target` (a Telegram video sticker, WhatsApp's animated WebP, Signal's APNG; the pack's target, not one of its own), its file sticker-NNN.<ext> in filesDir and its first frame on the sheet; target.encodings says how each was fitted, target.maxBytes is the animated limit. A WhatsApp pack is all animated or all still: a still among clips is -32602 at sources[i] (or stickers[i]). Its tray icon is made from the first sticker's first frame."
            }
          ],
          "result": {
            "name": "Pack",
            "schema": {
              "type": "object",
              "properties": {
                "output": {"$ref": "#/components/schemas/OutputResult"},
                "count": {"type": "integer", "minimum": 0},
                "columns": {"type": "integer", "minimum": 0},
                "rows": {"type": "integer", "minimum": 0},
                "files": {"type": "array", "items": {"type": "string"}},
                "paired": {
                  "type": "array",
                  "items": {"$ref": "#/components/schemas/LivePhotoPair"},
                  "description": "The Live Photos among sources (absent when none), in sources order."
                },
                "ms": {"type": "number", "minimum": 0, "description": "Wall time of the job in milliseconds."},
                "target": {
                  "type": "object",
                  "description": "With `target`: what was written for the messenger.",
                  "properties": {
                    "name": {"type": "string", "enum": [\#(ContractSchema.list(MessengerTarget.allCases.map(\.rawValue)))]},
                    "maxBytes": {
                      "type": "integer",
                      "minimum": 1,
                      "description": "The messenger's limit for one sticker file."
                    },
                    "largestBytes": {
                      "type": "integer",
                      "minimum": 0,
                      "description": "The largest sticker file written."
                    },
                    "encodings": {
                      "type": "array",
                      "items": {"type": "string"},
                      "description": "How each file was encoded, in `files` order: \"lossless\" or \"quality N\"."
                    },
                    "tray": {"type": "string", "description": "WhatsApp's tray icon (96x96 PNG)."}
                  },
                  "required": ["name", "maxBytes", "largestBytes", "encodings"],
                  "additionalProperties": false
                }
              },
              "required": ["output", "count", "columns", "rows", "ms"],
              "additionalProperties": false
            }
          },
          "errors": [\#(WorkerError.outputMethodErrors)],
          "x-streams": {"progress": true}
        }
        """#
}

extension PackExportMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Export a sticker pack", effects: .writesOutputs, runsAsTask: true)
}

extension PackExportMethod {
    static let estimatesMemory = true

    /// The params' own rules, checked before any source is read: what the pack is made of, the sheet's layout.
    /// The layout is for every source given; a pack with Live Photos lays out fewer items (``layout(_:count:maxPixels:)``).
    static func checked(_ params: Params, maxPixels: Int) throws -> (items: [BatchSource], fromPhotos: Bool, layout: StickerSheet) {
        let (items, fromPhotos) = try Self.items(params)
        let layout = try Self.layout(params, count: items.count, maxPixels: maxPixels)
        if params.target != nil && params.filesDir == nil {
            throw RPCError.invalidParams(path: "target", "needs \"filesDir\", the folder the messenger's files go to")
        }
        if params.subjects != nil && !fromPhotos {
            throw RPCError.invalidParams(path: "subjects", "goes with \"sources\" (photos to cut stickers from)")
        }
        _ = try StickerCutSpec.perSource(params.subjects, count: items.count, decontaminate: StickerCutSpec.decontaminateParam.value(params.decontaminate))
        _ = try Self.animated(params)
        return (items, fromPhotos, layout)
    }

    static let cellSize = NumberParam<Int>("cellSize", 16...4096, default: 256)
    /// At least 0; less than half the cell is checked against the cell's size.
    static let padding = NumberParam<Int>("padding", lower: .inclusive(0), message: "must be at least 0 and less than half the cell")
    static let columns = NumberParam<Int>("columns", 1...256)
    /// Stickers or sources in one pack, at most: stated once for the check and the schema.
    static let maxItems = 1000

    /// The sheet for `count` stickers: the cell, padding and columns asked for (columns by default the square root).
    static func layout(_ params: Params, count: Int, maxPixels: Int) throws -> StickerSheet {
        let cell = try Self.cellSize.value(params.cellSize)
        let padding = params.padding ?? cell / 16
        guard Self.padding.contains(padding), padding * 2 < cell else { throw RPCError.invalidParams(path: "padding", Self.padding.message) }
        let columns = params.columns ?? Int(Double(count).squareRoot().rounded(.up))
        try Self.columns.checked(columns)
        let layout = StickerSheet(columns: columns, cellSize: cell, padding: padding, background: try Self.background(params.background))
        let (sheetWidth, sheetHeight) = layout.size(for: count)
        guard sheetWidth * sheetHeight <= maxPixels else {
            throw RPCError.invalidParams(path: "cellSize", "the sheet (\(sheetWidth)x\(sheetHeight)) would exceed the pixel limit")
        }
        return layout
    }

    /// Stickers cut (or read) `maxJobs` at a time, as ``MemoryEstimate/batch(_:width:)`` counts them, and the sheet;
    /// the params checked first.
    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        _ = try Self.checked(params, maxPixels: services.options.maxPixels)
        let access = await services.access()
        let segmenter = params.segmenter ?? .network
        var children: [Int] = [], held = 0
        let services = services, compute = services.computeJob(for: context)
        let clipEstimate = { (moves: Bool, read: ImageSource) async -> Int in
            moves ? await ImageAnimatedStickerMethod.memoryEstimate(read, fitsTarget: true, services: services, access: access,
                                                                    on: compute) : 0
        }
        // As the job will see them: a Live Photo is one child, its clip's with `animated`, else its still's.
        for item in LivePhotoPairing.pair(params.sources ?? [], access: access).items {
            try Task.checkCancellation()
            let clip = params.animated == nil ? nil : item.motion
            let child = await services.loader.batchChild(clip ?? item.source, motion: params.animated != nil, access: access,
                                                         on: compute, held: &held, whileHeld: clipEstimate)
            // A URL read once is kept for the job (a clip found by its name is a path, and stays found by it).
            if clip == nil {
                params.sources?[item.index].source = child.source
            } else if params.sources?[item.index].motion != nil {
                params.sources?[item.index].motion = child.source
            }
            children.append(child.moves ? child.bytes
                            : MemoryEstimate.sticker(child.facts ?? ImageLoader.unreadable(encodedBytes: 0), segmenter: segmenter))
        }
        for (i, sticker) in (params.stickers ?? []).enumerated() {
            try Task.checkCancellation()
            let child = await services.loader.batchChild(sticker, motion: params.animated != nil, access: access,
                                                         on: compute, held: &held, whileHeld: clipEstimate)
            params.stickers?[i] = child.source
            children.append(child.moves ? child.bytes
                            : MemoryEstimate.convert(child.facts ?? ImageLoader.unreadable(encodedBytes: 0), output: .png))
        }
        let cell = min(max(params.cellSize ?? 256, 1), 4096)
        let sheet = children.count * cell * cell * 4
        let width = MemoryEstimate.widthWithin(services.memory?.bytes, children: children, width: services.maxJobs,
                                                plus: sheet + held)
        params.width = width
        return MemoryEstimate.batch(children, width: width) + sheet + held
    }
}
