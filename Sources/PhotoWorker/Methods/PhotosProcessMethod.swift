import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

/// `photos.process {"sources": [...], "count", "outline", "output", "maxConcurrency", "subjects", "decontaminate",
/// "segmenter", "animated"}`: the app's "process all photos". Every photo runs in a TaskGroup; each result (or error)
/// streams as an item notification the moment it finishes; one bad photo never fails the batch. With `animated`,
/// each motion source (a video, or a GIF or WebP of more than one frame) is cut as `image.animatedSticker` cuts it.
/// A Live Photo (a still with its clip, given as `motion` or found by name: ``LivePhotoPairing``) is one item: its
/// clip cut with `animated`, its still processed without; the result's `paired` lists each.
struct PhotosProcessMethod: RPCMethod {
    static let name = "photos.process"
    static let cost = MethodCost.compute
    static let summary = "Many photos in parallel; each photo's result (or error) is streamed as an item the moment it finishes."

    struct Params: Decodable, Sendable {
        var sources: [BatchSource]
        var count: Int?
        var outline: OutlineSpec?
        /// `network` (default) or `classical` (see ``Segmenter``).
        var segmenter: Segmenter?
        var output: OutputDirectorySpec
        var maxConcurrency: Int?
        /// Per source, which subject (``SubjectSpec``, null for the main one); as many as `sources`.
        var subjects: [SubjectSpec?]?
        /// The soft edge in the subject's own estimated colour (default true); false keeps the photo's colours.
        var decontaminate: Bool?
        /// With it, each motion source is cut as an animated sticker (``AnimatedSpec``); without, a GIF or WebP gives its
        /// first frame's results and a video is -32002, as before.
        var animated: AnimatedSpec?
    }

    /// One source's item: a photo's results, or a motion source's animated sticker.
    enum Item: Encodable, Sendable {
        case photo(PhotoProcessor.Result)
        case animated(AnimatedItem)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .photo(let r): try r.encode(to: encoder)
            case .animated(let a): try a.encode(to: encoder)
            }
        }
    }

    /// A motion source's item.
    struct AnimatedItem: Encodable, Sendable {
        var source: String
        /// A Live Photo's clip (the frames cut), beside its still `source`.
        var motion: String?
        var animatedSticker: ImageAnimatedStickerMethod.Result
    }

    struct Result: Encodable, Sendable {
        /// Items: the sources, less the clips a still took.
        var total: Int
        var completed: Int
        var failed: Int
        var cancelled: Int
        /// The Live Photos, when there are any.
        var paired: [LivePhotoPairing.Pair]?
        var ms: Double
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let start = ContinuousClock.now
        let count = try Self.checkedCount(params)
        // Children stay within the worker's job limit (and the memory budget: the estimate may have lowered
        // maxConcurrency to fit it).
        let limit = services.maxJobs
        let width = min(limit, max(1, params.maxConcurrency ?? limit))
        let access = await services.access()
        try OutputCheck.prepare(params.output, access: access)
        let compute = services.computeJob(for: context)
        let processor = PhotoProcessor(services: services, access: access, compute: compute)
        let outline = OutlineSpec.orStandard(params.outline)
        let digits = String(max(0, params.sources.count - 1)).count
        var completed = 0, failed = 0
        let pairing = LivePhotoPairing.pair(params.sources, access: access)
        let items = pairing.items
        let dir = params.output.dir, overwrite = params.output.overwritesFiles
        let segmenter = params.segmenter ?? .network
        let cuts = try StickerCutSpec.perSource(params.subjects, count: params.sources.count,
                                                      decontaminate: StickerCutSpec.decontaminateParam.value(params.decontaminate))
        let animated = params.animated
        if let animated {
            try animated.validate()
        }
        let services = services
        // Progress and items go out in order through one stream, ended (and sent) before the reply.
        let heartbeat = BatchHeartbeat<Item>(context: context, total: items.count)
        async let forwarded: Void = heartbeat.forward()
        defer { heartbeat.finish() }
        try await BoundedTaskGroup.run(count: items.count, width: width) { k -> Item in
            let index = items[k].index, motion = items[k].motion
            let name = String(repeating: "0", count: digits - String(index).count) + "\(index)-" + PhotoProcessor.stem(for: items[k].source)
            var source = items[k].source
            if let animated {
                // A Live Photo moves by its clip; any other source as the look at its bytes tells.
                var moves = motion != nil
                if !moves { (moves, source) = await services.loader.probeMotion(source, access: access, on: compute) }  // a URL fetched once, for either path
                if moves {
                    let request = animated.params(source: source, motion: motion,
                                                  path: "\(dir)/\(name)-sticker.\(animated.format.fileExtension)",
                                                  overwrite: overwrite, outline: outline, cut: cuts[index])
                    let made = try await ImageAnimatedStickerMethod.make(request, services: services, access: access, compute: compute,
                                                                         subjectPath: cuts[index].subjectPath,
                                                                         sourcePath: "sources[\(index)]",
                                                                         motionPath: "sources[\(index)].motion",
                                                                         paramPath: AnimatedSpec.paramPath,
                                                                         progress: heartbeat.clip("sources[\(index)]"))
                    return .animated(AnimatedItem(source: source.description, motion: motion?.description,
                                                  animatedSticker: made.result))
                }
            }
            return .photo(try await processor.process(source, name: name, count: count, outline: outline,
                                                       directory: dir, segmenter: segmenter, cached: false,
                                                       overwrite: overwrite, cut: cuts[index]))
        } handle: { k, outcome in
            // Progress first, then the item: an MCP host, which sees both as
            // notifications/progress, then gets strictly increasing values with the total.
            switch outcome {
            case .success(let r):
                completed += 1
                heartbeat.itemEnded(.result(index: items[k].index, r))
            case .failure(let e) where e is CancellationError || Task.isCancelled:
                break  // an item stopped by the batch's cancel (with its step's own error, a fetch's aborted transfer) is not a failure
            case .failure(let e):
                failed += 1
                heartbeat.itemEnded(.failure(index: items[k].index, RPCError(e)))
            }
        }
        heartbeat.finish()
        await forwarded
        try Task.checkCancellation()
        return Result(
            total: items.count, completed: completed, failed: failed,
            cancelled: items.count - completed - failed, paired: pairing.pairs.isEmpty ? nil : pairing.pairs,
            ms: start.millisecondsElapsed)
    }
}

extension PhotosProcessMethod {
    static let contract: MethodContract = #"""
        {
          "params": [
            {
              "name": "sources",
              "schema": {"type": "array", "items": {"$ref": "#/components/schemas/BatchSource"}, "maxItems": \#(Self.maxSources)},
              "required": true,
              "description": "The photos and clips; a Live Photo as its still with its clip as `motion`, or as the still's path alone (or beside its clip's) when the clip has its name: IMG_1234.HEIC or .JPG with IMG_1234.MOV or .MP4 (any case) in its folder. A Live Photo is one item, its still's: with `animated` its clip is cut, without it its still is processed. `paired` in the result lists each."
            },
            \#(PaletteStage.count.entry()),
            {"name": "outline", "schema": {"$ref": "#/components/schemas/Outline"}, "required": false},
            {"name": "output", "schema": {"$ref": "#/components/schemas/OutputDirectory"}, "required": true},
            \#(Self.maxConcurrency.entry()),
            {
              "name": "segmenter",
              "schema": {"$ref": "#/components/schemas/Segmenter"},
              "description": "`network` (default) or `classical`."
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
              "description": "Cut each motion source (a video, or a GIF or WebP of more than one frame) as image.animatedSticker does with these settings (and the batch's outline and subjects entry): its item is {source, animatedSticker} and its file <index>-<stem>-sticker.<ext> in output.dir (the target's format, else `format`, default animated WebP). Without it a GIF or WebP gives its first frame's results and a video is -32002."
            }
          ],
          "result": {
            "name": "PhotosSummary",
            "schema": {
              "type": "object",
              "properties": {
                "total": {"type": "integer", "minimum": 0, "description": "Items: the sources, less the clips a Live Photo's still took."},
                "completed": {"type": "integer", "minimum": 0},
                "failed": {"type": "integer", "minimum": 0},
                "cancelled": {"type": "integer", "minimum": 0},
                "paired": {
                  "type": "array",
                  "items": {"$ref": "#/components/schemas/LivePhotoPair"},
                  "description": "The Live Photos among the sources (absent when none), in sources order."
                },
                "ms": {"type": "number", "minimum": 0, "description": "Wall time of the job in milliseconds."}
              },
              "required": ["total", "completed", "failed", "cancelled", "ms"],
              "additionalProperties": false
            }
          },
          "errors": [\#(WorkerError.outputMethodErrors)],
          "x-streams": {"item": {"$ref": "#/components/schemas/PhotosItem"}, "progress": true}
        }
        """#

    /// `PhotosItem` (a source's item) and `AnimatedItem` (a motion source's, with `animated`).
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("AnimatedItem", #"""
            {
              "type": "object",
              "description": "A motion source's item in photos.process with `animated`: the source as given and its animated sticker, as image.animatedSticker answers; for a Live Photo, its still as source and the clip cut as motion.",
              "properties": {
                "source": {"type": "string"},
                "motion": {"type": "string", "description": "A Live Photo's clip, the frames cut (given as motion or found beside the still)."},
                "animatedSticker": {"$ref": "#/components/schemas/AnimatedSticker"}
              },
              "required": ["source", "animatedSticker"],
              "additionalProperties": false
            }
            """#),
        ContractSchema("PhotosItem", #"""
            {
              "description": "One source's item in photos.process: a photo's results, or (with `animated`) a motion source's animated sticker.",
              "oneOf": [{"$ref": "#/components/schemas/PhotoResult"}, {"$ref": "#/components/schemas/AnimatedItem"}]
            }
            """#),
    ]
}

extension PhotosProcessMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Process photos", effects: .writesOutputs, runsAsTask: true, batch: .init(sourcesKey: "sources", itemResult: "PhotosItem"))
}

extension PhotosProcessMethod {
    static let estimatesMemory = true

    /// How many sources at once, at most (the worker's job limit caps it too).
    static let maxConcurrency = NumberParam<Int>("maxConcurrency", lower: .inclusive(1))
    /// Sources in one batch, at most: stated once for the check and the schema.
    static let maxSources = 100_000

    /// The palette's count, once the params' own limits are checked (before any source is read).
    static func checkedCount(_ params: Params) throws -> Int {
        let count = try PaletteStage.validCount(params.count)
        guard params.sources.count <= Self.maxSources else {
            throw RPCError.invalidParams(path: "sources", "at most \(Self.maxSources) sources")
        }
        try Self.maxConcurrency.checked(params.maxConcurrency)
        return count
    }

    /// The widest children's estimates together (``MemoryEstimate/batch(_:width:)``). A source that cannot be read
    /// is estimated cautiously rather than refused: one bad photo never fails the batch.
    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        _ = try Self.checkedCount(params)
        _ = try StickerCutSpec.perSource(params.subjects, count: params.sources.count, decontaminate: StickerCutSpec.decontaminateParam.value(params.decontaminate))
        try params.animated?.validate()
        let access = await services.access()
        let segmenter = params.segmenter ?? .network
        let compute = services.computeJob(for: context)
        var children: [Int] = [], held = 0
        children.reserveCapacity(params.sources.count)
        // As the job will see them: a Live Photo is one child, its clip's with `animated`, else its still's.
        for item in LivePhotoPairing.pair(params.sources, access: access).items {
            try Task.checkCancellation()
            let fitsTarget = params.animated?.target != nil
            let clip = params.animated == nil ? nil : item.motion
            let child = await services.loader.batchChild(clip ?? item.source, motion: params.animated != nil, access: access,
                                                         on: compute, held: &held) { [services] moves, read in
                moves ? await ImageAnimatedStickerMethod.memoryEstimate(read, fitsTarget: fitsTarget, services: services,
                                                                        access: access, on: compute) : 0
            }
            // A URL read once is kept for the job (a clip found by its name is a path, and stays found by it).
            if clip == nil {
                params.sources[item.index].source = child.source
            } else if params.sources[item.index].motion != nil {
                params.sources[item.index].motion = child.source
            }
            children.append(child.moves ? child.bytes
                            : MemoryEstimate.photo(child.facts ?? ImageLoader.unreadable(encodedBytes: 0), segmenter: segmenter))
        }
        // As many children at once as asked (at most the job limit) while they fit the memory budget.
        let width = MemoryEstimate.widthWithin(services.memory?.bytes, children: children,
                                               width: min(services.maxJobs, params.maxConcurrency ?? services.maxJobs),
                                               plus: held)
        params.maxConcurrency = width
        return MemoryEstimate.batch(children, width: width) + held
    }
}
