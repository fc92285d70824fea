import Compute
import Foundation
import Imaging
import JSONRPC
import JSONRPCTransport

/// `image.animatedSticker {"source", "motion", "output", "start", "duration", "fps", "size", "outline", "maskOutput",
/// "target", "keyFrameInterval", "subject", "decontaminate", "canvas"}`: the subject of a GIF, an animated WebP or a video cut out in every frame, written
/// as WebM (VP9 with alpha), animated WebP, APNG or GIF; with a `target`, fitted to that messenger's limits. A Live
/// Photo is its still as `source` and its clip as `motion` (``LivePhoto``): the clip is what is cut.
///
/// Frames are decoded, scaled and masked one at a time by `ClipCut` (Imaging's state machine, driven here): the
/// network cuts key frames only (``KeyFrameCutter``), beside the next frames' motion, and the masks between are
/// carried with the subject's motion and blended, so the edge does not flicker; each batch of settled frames is cut
/// out and encoded (``AnimationSink``) while the next is decoded and cut. `$/progress` counts
/// frames; a cancelled request stops at the next frame and writes nothing (files are written once, atomically, at
/// the end, before the reply).
struct ImageAnimatedStickerMethod: RPCMethod {
    static let name = "image.animatedSticker"
    static let cost = MethodCost.compute
    static let summary = "Cut the subject out of every frame of a GIF, WebP or video as an animated sticker."

    struct Params: Decodable, Sendable {
        var source: ImageSource
        /// A Live Photo's clip beside its still `source`: the frames cut are the clip's.
        var motion: ImageSource?
        var output: AnimatedOutputSpec
        /// Seconds from the source's start.
        var start: Double?
        /// Seconds from `start` (a target's longest by default).
        var duration: Double?
        /// Output frames per second (the source's own timing by default).
        var fps: Double?
        /// Long side of the frames the subject is cut in (default 512); a target lays them out at its own size.
        var size: Int?
        var outline: OutlineSpec?
        /// Every frame's mask over the whole frame, as an animated greyscale APNG or WebP.
        var maskOutput: AnimatedOutputSpec?
        var target: MessengerTarget?
        /// Seconds between the frames the network cuts (default 0.5); the masks between are carried with the
        /// subject's motion and blended.
        var keyFrameInterval: Double?
        /// Which subject, in pixels of the first output frame as the source displays it; each later key frame is cut
        /// of the same subject (the prompt carried with it, `SubjectPrompt.carried(along:onto:)`).
        var subject: SubjectSpec?
        /// Whether the soft edge takes the subject's own colour in every frame, as a still sticker's (default true).
        var decontaminate: Bool?
        /// What the sticker shows: the subject's box over the whole clip (default) or the whole frame.
        var canvas: AnimatedCanvas?
    }

    /// The numeric params' bounds and defaults, stated once: `validate`, the cut, the contract below and
    /// `photos.process`'s `animated` (``AnimatedSpec``) read them.
    enum Rules {
        static let start = NumberParam<Double>("start", lower: .inclusive(0), unit: "seconds")
        static let duration = NumberParam<Double>("duration", lower: .exclusive(0), unit: "seconds")
        static let fps = NumberParam<Double>("fps", lower: .exclusive(0), upper: .inclusive(60))
        static let size = NumberParam<Int>("size", 16...2048, default: 512)
        static let keyFrameInterval = NumberParam<Double>("keyFrameInterval", 0...10, default: 0.5, unit: "seconds")
        /// Without `fps`, a source faster than this is made at this rate.
        static let fastSourceRate = 30.0
    }

    /// `canvas`: its names and default, stated once.
    static let canvas = EnumParam<AnimatedCanvas>("canvas", default: .subject)

    /// `canvas`: the part of the frames an animated sticker shows.
    enum AnimatedCanvas: String, Decodable, Sendable, CaseIterable {
        /// The box of the subject over the whole clip, plus room for the outline: as a still sticker is cropped.
        case subject
        /// The whole frame, the subject where it is in it.
        case frame
    }

    struct TargetResult: Encodable, Sendable {
        var name: MessengerTarget
        var maxBytes: Int
        var maxDuration: Double
        /// The encoding written: "quality Q, F fps, L s: B bytes".
        var encoding: String
        /// Every encoding tried, in order (the last is the file's).
        var encodings: [String]
    }

    struct Result: Encodable, Sendable {
        var output: AnimatedOutputResult
        var mask: AnimatedOutputResult?
        var frames: Int
        var duration: Double
        var keyFrames: Int
        /// Mean share of the subject's pixels that change side between consecutive frames' masks.
        var flicker: Double
        var segmenter: Segmenter
        /// Why it is that one, or what it ran without; absent when nothing is missing (or no frame was cut).
        var segmenterReason: String?
        var target: TargetResult?
        /// What was changed of what was asked, in words (`ClipWarnings`); empty when nothing was.
        var warnings: [String]
        var ms: Double
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        try await Self.make(params, services: services, access: await services.access(),
                            compute: services.computeJob(for: context)) { done, total, message in
            await context.progress(done: done, total: total, message: message)
        }.result
    }

    /// How an animated sticker reports its way: frames done of those expected, and a message for each fitting
    /// attempt.
    typealias Progress = @Sendable (_ done: Int, _ total: Int, _ message: String?) async -> Void

    /// The animated sticker `params` ask for, its files written through `access`, and its first frame as written
    /// (what `pack.export`'s sheet shows of it): the request's whole job, and each motion source's in `photos.process`
    /// and `pack.export` with `animated` (which pass no progress on: theirs counts sources).
    /// - Parameters:
    ///   - subjectPath: where `params.subject` sits in the request, for its errors (`subjects[2]` in a batch);
    ///     `sourcePath` and `motionPath` likewise for `params.source` and `params.motion` (`sources[2].motion`).
    ///   - paramPath: where the other params sit (`animated.duration` in a batch).
    ///   - compute: the job the clip's pixel work runs as (a batch's sources share their request's).
    ///   - cutsSubject: false for a source that is already a sticker (`pack.export`'s `stickers`): each frame keeps its
    ///     own alpha as its mask, and is only laid out, encoded and fitted again (no network, no outline, no subject).
    static func make(_ params: Params, services: WorkerServices, access: FileAccess, compute: ComputeJob,
                     subjectPath: String = "subject",
                     sourcePath: String = "source", motionPath: String = "motion",
                     paramPath: @escaping @Sendable (String) -> String = { $0 }, cutsSubject: Bool = true,
                     progress: @escaping Progress) async throws -> (result: Result, firstFrame: Image) {
        try await MallocThresholdScope.motion.during {
            try await cut(params, services: services, access: access, compute: compute, subjectPath: subjectPath,
                          clipPath: params.motion == nil ? sourcePath : motionPath, paramPath: paramPath,
                          cutsSubject: cutsSubject, progress: progress)
        }
    }

    private static func cut(_ params: Params, services: WorkerServices, access: FileAccess, compute: ComputeJob,
                            subjectPath: String,
                            clipPath: String, paramPath: @escaping @Sendable (String) -> String, cutsSubject: Bool,
                            progress: @escaping Progress) async throws -> (result: Result, firstFrame: Image) {
        let clock = ContinuousClock.now
        // Everything that can be checked before the work is, before any frame is decoded: the params, the outputs,
        // then (at open) the window against what the container declares and the limits.
        let format = try Self.validate(params, path: paramPath)
        try Self.checkOutputs(params, access: access)
        let target = params.target
        // A Live Photo's still is only named, not read, but the session must be allowed to read it as any source.
        if params.motion != nil, case .path(let still) = params.source { close(try access.openForReading(still)) }
        let clip = params.motion ?? params.source
        let decoder: MotionDecoder
        do {
            decoder = try await services.loader.motionDecoder(
                clip, access: access, start: params.start ?? 0,
                duration: params.duration ?? target?.animatedMaxDuration, on: compute)
        } catch {
            // A photo where a clip is needed: say how to give its clip rather than what the clip reader found.
            if let still = LivePhoto.stillFormat(of: clip, access: access) {
                throw LivePhoto.stillIsNotAClip(clip, format: still, path: clipPath, access: access)
            }
            if case WorkerError.invalidClip(let source, let failure) = error {
                throw Self.windowError(failure, params: params, path: paramPath) ?? WorkerError.invalidClip(source: source, failure: failure)
            }
            throw error
        }
        let info = decoder.info
        let chosen = cutsSubject ? try params.subject?.validated(width: info.width, height: info.height, path: subjectPath) : nil
        let long = params.size ?? Rules.size.standard
        let scale = Double(long) / Double(max(info.width, info.height))
        var side = (max(2, Int((Double(info.width) * scale).rounded())), max(2, Int((Double(info.height) * scale).rounded())))
        if format == .webm { side = (side.0 + side.0 % 2, side.1 + side.1 % 2) }
        let (width, height) = side
        let fps = params.fps ?? info.frameRate.flatMap { $0 > Rules.fastSourceRate ? Rules.fastSourceRate : nil }
        // A GIF or a WebP declares no frame rate: its mean over the whole animation stands in, so key frames are as
        // many seconds apart as a video's.
        let mean = info.frameCount.flatMap { n in info.duration.flatMap { $0 > 0 && n > 1 ? Double(n) / $0 : nil } }
        let rate = fps ?? info.frameRate ?? mean ?? 15
        // A ready-made sticker's frames are each their own key frame: their masks are their alpha, nothing to carry.
        let keyInterval = cutsSubject ? max(1, Int((rate * (params.keyFrameInterval ?? Rules.keyFrameInterval.standard)).rounded())) : 1
        let window = min(params.duration ?? target?.animatedMaxDuration ?? .infinity,
                         max(0, (info.duration ?? .infinity) - (params.start ?? 0)))
        let total = window.isFinite ? max(1, Int((window * rate).rounded(.up))) : (info.frameCount ?? 1)
        // Resampled frames are frames made, cut and encoded: as many as --max-frames allows a source.
        if let fps, window.isFinite, total > services.options.maxFrames {
            // The rate asked for, or the 30 fps a faster source is made at: then the length is what to change.
            throw RPCError.invalidParams(path: paramPath(params.fps == nil ? "duration" : "fps"),
                "at \(MotionError.seconds(fps)) fps the \(MotionError.tenths(window)) s to be read are \(total) frames; this worker allows \(services.options.maxFrames) (--max-frames)")
        }

        var (framesRead, readUntil, endsInsideFrame) = (0, 0.0, false)
        var machine = ClipCut(width: width, height: height, keyInterval: keyInterval,
                              decontaminates: cutsSubject && StickerCutSpec.decontaminateParam.value(params.decontaminate), framesAreStickers: !cutsSubject,
                              followsPrompt: chosen != nil)
        // A ready-made sticker keeps its own canvas: its frames are only laid out again.
        let placement = FramePlacement(outline: cutsSubject ? .orStandard(params.outline) : nil, target: target,
                                       cropsToSubject: cutsSubject && Self.canvas.value(params.canvas) == .subject,
                                       format: format)
        // Every step's progress goes through one stream to one consumer (`AnimatedProgress` counts frames cut, then
        // encoded), which ends before the reply.
        let (steps, step) = AsyncStream<AnimatedProgress.Event>.makeStream()
        async let reported: Void = {
            var count = AnimatedProgress()
            for await event in steps {
                if let (done, total, message) = count.apply(event) { await progress(done, total, message) }
            }
        }()
        defer { step.finish() }
        // Masks keep exact values: lossless APNG, or WebP at its best quality.
        let sink = try AnimationSink(
            placement: placement, frameWidth: width, frameHeight: height,
            output: AnimationSettings(format: format, width: width, height: height, quality: params.output.quality ?? AnimatedOutputSpec.standardQuality),
            maskSettings: params.maskOutput.map {
                AnimationSettings(format: $0.format ?? .apng, width: width, height: height, quality: 100)
            }, encodedFrame: { step.yield(.encoded) })
        // A video hands out its frames at the cut's size, scaled as they are converted. A reader that cannot (GIF,
        // WebP, a clip smaller than the cut) or fails to leaves them at full size: they are resized below either way.
        _ = try? decoder.scaleFrames(toWidth: width, height: height)
        let cutter = KeyFrameCutter(compute: compute, memory: services.activations, sourcePixels: info.width * info.height)
        var segmenter = Segmenter.network
        // The subject chosen, at the cut's size; each key frame's prompt is carried on to the next one.
        var prompt = chosen?.scaled(fromWidth: info.width, height: info.height, toWidth: width, height: height)
        let sourceName = clip.description
        /// Runs one step of the machine on a compute thread, handed the piece it runs as.
        func advance(_ body: @escaping @Sendable (inout ClipCut, ComputePiece) throws -> [ClipCut.Action]) async throws -> [ClipCut.Action] {
            let current = machine
            let (next, actions) = try await compute.run { loop in var m = current; let a = try body(&m, loop); return (m, a) }
            machine = next
            return actions
        }
        // The driver of `ClipCut`: emitted frames go to the sink, encoded on another compute job beside the next
        // frames' motion (at most one batch at a time, in order). A key frame's cut is awaited as it is asked for:
        // cut beside the next frames' motion it was no faster on two cores (its two passes take both threads) and held
        // a key interval more of frames (bench/README.md); `ClipCut` takes a cut whenever it comes, so that stays the
        // driver's choice.
        try await withThrowingTaskGroup(of: Void.self) { encoding in
            var encodingBatch = false
            func hand(_ batch: [AnimatedFrame]) async throws {
                guard !batch.isEmpty else { return }
                if encodingBatch { try await encoding.next() }
                encoding.addTask {
                    try await compute.run { loop in
                        do { try sink.add(batch, on: loop) } catch let error as ImagingError {
                            throw WorkerError.encodingFailed(detail: error.message)
                        }
                    }
                }
                encodingBatch = true
            }
            func perform(_ actions: [ClipCut.Action]) async throws {
                for action in actions {
                    switch action {
                    case .emit(let frames):
                        try await hand(frames)
                    case .cutKeyFrame(let request):
                        if let before = prompt, let motion = request.motion {
                            prompt = try await cutter.carry(before, along: motion)
                        }
                        let (mask, used) = try await cutter.mask(request.image, prompt: prompt)
                        segmenter = used
                        try await perform(try await advance { try $0.keyFrameCut(request.frame, mask: mask, on: $1) })
                    }
                }
            }
            var nextTick: Double?  // with `fps`: the next output frame's time
            while true {
                try Task.checkCancellation()
                // One source frame read, scaled to the cut's size and added to the machine (with `fps`, once for each
                // output frame it shows through) in one compute job: one hop to the compute threads a frame.
                let (current, tick) = (machine, nextTick)
                typealias Read = (frame: (time: Double, duration: Double, truncated: Bool), cut: ClipCut,
                                  actions: [ClipCut.Action], nextTick: Double?)
                let read = try await compute.run { (loop: ComputePiece) -> Read? in
                    let next: MotionFrame?
                    do {
                        next = try decoder.next(on: loop)
                    } catch let error as MotionError {
                        // A decoder error mid-clip (a hostile or broken file) is the source's error, as at open.
                        throw WorkerError(error, source: sourceName)
                    }
                    guard let frame = next else { return nil }
                    let scaled = try Resampler.resize(frame.image, width: width, height: height, on: loop)
                    // A source of one still frame says nothing of how long to show it.
                    let shown = frame.duration > 0 ? frame.duration : 1 / rate
                    let timing = (frame.time, frame.duration, frame.truncated)
                    var cut = current
                    guard let fps else {
                        let actions = try cut.add(scaled, duration: shown, on: loop)
                        return (timing, cut, actions, nil)
                    }
                    // Resampled: the frames whose ticks fall within this one's display time.
                    var actions: [ClipCut.Action] = [], t = tick ?? frame.time
                    while t < frame.time + shown - 1e-6 {
                        try loop.checkCancellation()
                        actions += try cut.add(scaled, duration: 1 / fps, on: loop)
                        t += 1 / fps
                    }
                    return (timing, cut, actions, t)
                }
                guard let (frame, next, actions, tick) = read else { break }
                (machine, nextTick) = (next, tick)
                framesRead += 1
                readUntil = max(readUntil, frame.time + frame.duration)
                endsInsideFrame = endsInsideFrame || frame.truncated
                step.yield(.cut(framesIn: machine.framesIn, expected: total))
                try await perform(actions)
            }
            // The last frame is read: the decoder's state (a 4K HEVC stream's reference frames) goes before the last
            // key frame's cut and the encode, which held the clip's peak beside it.
            decoder.close()
            try await perform(try await advance { try $0.finishClip(on: $1) })
            try await encoding.waitForAll()
        }
        precondition(machine.isFinished, "frames left in the clip's cut")
        guard machine.framesOut > 0 else {
            // A start past the end of a clip that declares no length is found only now.
            if let start = params.start, start > 0 {
                throw RPCError.invalidParams(path: paramPath("start"),
                                             "the clip ends before \(MotionError.seconds(start)) s: no frame starts after it")
            }
            throw WorkerError.invalidImage(source: clip.description, detail: "no frames in the requested window",
                                           truncated: false)
        }
        step.yield(.cutEnded(frames: machine.framesOut))
        let outputPath = params.output.path ?? "inline output"
        // A target's fitting may encode the clip several times: each attempt is reported as it ends.
        let finished: Swift.Result<([UInt8], (width: Int, height: Int), Image?, AnimationFitting.Result?, [UInt8]?), any Error>
        do {
            finished = .success(try await compute.run { loop in
                do {
                    return try sink.finish(path: outputPath, on: loop) { step.yield(.attempt($0)) }
                } catch let error as ImagingError {
                    throw WorkerError.encodingFailed(detail: error.message)
                }
            })
        } catch {
            finished = .failure(error)
        }
        if case .success = finished { step.yield(.finished) }
        step.finish()
        await reported
        let (bytes, canvas, first, fit, maskBytes) = try finished.get()
        guard let firstFrame = first else {
            throw WorkerError.invalidImage(source: clip.description, detail: "no frames in the requested window",
                                           truncated: false)
        }
        let output = try await Self.write(bytes, to: params.output, format: format, width: canvas.width,
                                          height: canvas.height, access: access, on: services.blocking)
        var mask: AnimatedOutputResult?
        if let spec = params.maskOutput, let maskBytes {
            mask = try await Self.write(maskBytes, to: spec, format: spec.format ?? .apng, width: width, height: height,
                                        access: access, on: services.blocking)
        }
        var facts = ClipWarnings.Facts(sourceWidth: info.width, sourceHeight: info.height, cutLongSide: max(width, height),
                                       declaredDuration: info.duration, declaredFrameRate: info.frameRate,
                                       start: params.start ?? 0, duration: params.duration, fps: params.fps,
                                       target: target, outputFrameRate: fps)
        (facts.framesRead, facts.readUntil, facts.endsInsideFrame) = (framesRead, readUntil, endsInsideFrame)
        (facts.framesOut, facts.framesWithoutSubject) = (machine.framesOut, cutsSubject ? machine.framesWithoutSubject : 0)
        (facts.madeFrameRate, facts.madeDuration) = (machine.duration > 0 ? Double(machine.framesOut) / machine.duration : 0,
                                                     machine.duration)
        facts.chosen = fit?.chosen
        facts.firstQuality = fit?.attempts.first?.quality
        facts.decoderMessages = decoder.warnings
        let result = Result(
            output: output, mask: mask, frames: fit?.chosen.frames ?? machine.framesOut,
            duration: ((fit.map { $0.chosen.length } ?? machine.duration) * 1000).rounded() / 1000,
            keyFrames: machine.keyFrames, flicker: (machine.flicker * 10000).rounded() / 10000, segmenter: segmenter,
            segmenterReason: cutsSubject ? segmenter.reason(asked: .network) : nil,
            target: fit.map { fit in
                TargetResult(name: target!, maxBytes: target!.animatedMaxBytes, maxDuration: target!.animatedMaxDuration,
                             encoding: fit.chosen.summary, encodings: fit.attempts.map(\.summary))
            },
            warnings: ClipWarnings.warnings(facts), ms: clock.millisecondsElapsed)
        return (result, firstFrame)
    }

    /// The outputs checked as every method checks them before its work (``OutputCheck``).
    static func checkOutputs(_ params: Params, access: FileAccess) throws {
        try OutputCheck.check(params.output, access: access)
        if let mask = params.maskOutput { try OutputCheck.check(mask, access: access) }
    }

    /// A clip's refusal of the window asked for, as -32602 at the parameter that asked for it: `start` past the
    /// clip's end, or a `duration` longer than --max-duration allows (of a clip that holds that much from `start`).
    /// Nil for a refusal that is the clip's own (a clip longer than the limit with no window asked for).
    static func windowError(_ failure: MotionError, params: Params, path: (String) -> String) -> RPCError? {
        switch failure {
        case .startPastEnd:
            return RPCError.invalidParams(path: path("start"), failure.summary)
        case .windowTooLong(_, let limit) where params.duration != nil:
            return RPCError.invalidParams(path: path("duration"),
                                          "\(failure.summary): give a duration of at most \(MotionError.seconds(limit)) s")
        default:
            return nil
        }
    }

    /// The output format, after the checks the decoder cannot make.
    /// - Parameter path: a parameter's path in the request (`photos.process` puts these under `animated`).
    static func validate(_ params: Params, path: (String) -> String = { $0 }) throws -> ImageFormat {
        let named = try params.output.path.flatMap { try AnimatedOutputSpec.format(namedBy: $0, at: path("output.path")) }
        if let target = params.target, let f = params.output.format, f != target.animatedFormat {
            // The format the path's extension names, or one given.
            throw RPCError.invalidParams(path: path(named == f ? "output.path" : "output.format"),
                                         "\(target.rawValue) takes \(target.animatedFormat.rawValue), not \(f.rawValue)")
        }
        guard let format = params.target?.animatedFormat ?? params.output.format else {
            throw RPCError.invalidParams(path: path("output.format"),
                                         "give \(ImageFormat.animated.map(\.rawValue).dropLast().joined(separator: ", ")) or \(ImageFormat.animated.last!.rawValue) (or a path ending in one of them, or a target)")
        }
        if let named, named != format, let file = params.output.path {
            throw RPCError.invalidParams(path: path("output.path"),
                ".\((file as NSString).pathExtension) names \(named.rawValue), but the sticker is written as \(format.rawValue); name the file .\(format.fileExtension) (or leave format out)")
        }
        if let m = params.maskOutput?.format, m != .apng, m != .webp {
            throw RPCError.invalidParams(path: path("maskOutput.format"), "the masks are written as apng or webp")
        }
        try Rules.fps.checked(params.fps, path: path("fps"))
        try Rules.size.checked(params.size, path: path("size"))
        try Rules.start.checked(params.start, path: path("start"))
        try Rules.duration.checked(params.duration, path: path("duration"))
        try Rules.keyFrameInterval.checked(params.keyFrameInterval, path: path("keyFrameInterval"))
        return format
    }

    static func write(_ bytes: [UInt8], to spec: AnimatedOutputSpec, format: ImageFormat, width: Int, height: Int,
                      access: FileAccess, on blocking: BlockingPool) async throws -> AnimatedOutputResult {
        var result = AnimatedOutputResult(path: nil, data: nil, format: format, width: width, height: height,
                                          bytes: bytes.count)
        if spec.inline {
            result.data = Data(bytes).base64EncodedString()
        } else {
            // A file's write and rename block: on the blocking pool, never the cooperative pool.
            let path = spec.path!, overwrite = spec.overwrite
            try await blocking.run(polling: { loop in
                try access.writeAtomically(bytes, to: path, overwrite: overwrite, on: loop)
            })
            result.path = path
        }
        return result
    }
}

extension ImageAnimatedStickerMethod {
    static let contract: MethodContract = #"""
        {
          "description": "Frames are decoded, scaled and masked one at a time. The network cuts key frames (every keyFrameInterval seconds); each frame between gets the two key frames' masks moved with the subject (its motion followed frame to frame) and blended by its place between them, so the edge neither flickers nor lags. With a target the output takes the messenger's format and is fitted to its limits: \#(MessengerLimits.animatedSentence). Fitting steps quality, then frame rate, then length (target.encodings); nothing fitting is -32005 with data.rule \"size-limit\". Files are written once, at the end; a cancelled request writes nothing.",
          "params": [
            {
              "name": "source",
              "schema": {"$ref": "#/components/schemas/Source"},
              "required": true,
              "description": "A GIF, animated WebP, MP4/MOV or WebM/Matroska clip; or a Live Photo's still (HEIC, JPEG) with its clip as `motion`. A still photo alone is -32602 at source, naming the clip to pass."
            },
            {
              "name": "motion",
              "schema": {"$ref": "#/components/schemas/Source"},
              "required": false,
              "description": "A Live Photo's clip (IMG_1234.MOV beside IMG_1234.HEIC): the frames cut are the clip's, the still `source` is only named (and read as the session's policy allows)."
            },
            {"name": "output", "schema": {"$ref": "#/components/schemas/AnimatedOutput"}, "required": true},
            \#(Rules.start.entry(description: "Seconds from the source's start.")),
            \#(Rules.duration.entry(description: "Seconds from start (a target's longest by default).")),
            \#(Rules.fps.entry(description: "Output frames per second (the source's own timing by default; at most \(Rules.fastSourceRate.contractText) when the source is faster).")),
            \#(Rules.size.entry(description: "Long side of the frames the subject is cut in; a target lays them out at its own size.")),
            {"name": "outline", "schema": {"$ref": "#/components/schemas/Outline"}, "required": false},
            {
              "name": "maskOutput",
              "schema": {"$ref": "#/components/schemas/AnimatedOutput"},
              "required": false,
              "description": "Every frame's mask over the whole frame (not cropped), as an animated greyscale APNG or WebP at the frame size."
            },
            {
              "name": "target",
              "schema": {"type": "string", "enum": [\#(ContractSchema.list(MessengerTarget.allCases.map(\.rawValue)))]},
              "required": false
            },
            \#(Rules.keyFrameInterval.entry(description: "Seconds between the frames the network cuts; 0 cuts every frame.")),
            {
              "name": "subject",
              "schema": {"$ref": "#/components/schemas/Subject"},
              "required": false,
              "description": "Which subject to cut out, in pixels of the first output frame (at `start`) as the source displays it (image.info's width and height); every later key frame is cut of the same subject, the prompt carried with its motion. Absent, the main subject of each key frame."
            },
            \#(StickerCutSpec.decontaminateParam.entry(description: "Whether the soft edge of every frame takes the subject's own colour (foreground estimation), as a still sticker's does: no fringe of the old background.")),
            \#(Self.canvas.entry(description: "What the sticker shows: subject, the box of the subject over the whole clip (plus room for the outline), as a still sticker is cropped; frame, the whole frame. A target then lays it out at its own size."))
          ],
          "result": {"name": "AnimatedSticker", "schema": {"$ref": "#/components/schemas/AnimatedSticker"}},
          "errors": [\#(WorkerError.outputMethodErrors)],
          "x-streams": {"progress": true}
        }
        """#

    /// `AnimatedSticker`: the result, also each motion source's in `photos.process` with `animated`.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("AnimatedSticker", #"""
            {
              "type": "object",
              "properties": {
                "output": {"$ref": "#/components/schemas/AnimatedOutputResult"},
                "mask": {"$ref": "#/components/schemas/AnimatedOutputResult"},
                "frames": {"type": "integer", "minimum": 1},
                "duration": {"type": "number", "minimum": 0, "description": "Seconds."},
                "keyFrames": {"type": "integer", "minimum": 1, "description": "Frames the network cut."},
                "flicker": {
                  "type": "number",
                  "minimum": 0,
                  "maximum": 1,
                  "description": "Mean share of the subject's pixels that change side between consecutive frames' masks (the subject's own motion included)."
                },
                "segmenter": {"$ref": "#/components/schemas/Segmenter"},
                "segmenterReason": \#(Segmenter.reasonSchema),
                "warnings": {
                  "type": "array",
                  "items": {"type": "string"},
                  "description": "What was changed of what was asked, in words: a clip cut off (frames read against its declared length), trimmed to a target's length, scaled up, resampled to 30 fps, its quality, frame rate or length lowered to fit a target, frames with no subject; then the decoder's own messages (FFmpeg's), never on stderr. Empty when nothing was."
                },
                "target": {
                  "type": "object",
                  "properties": {
                    "name": {"type": "string", "enum": [\#(ContractSchema.list(MessengerTarget.allCases.map(\.rawValue)))]},
                    "maxBytes": {"type": "integer"},
                    "maxDuration": {"type": "number"},
                    "encoding": {
                      "type": "string",
                      "description": "The encoding written: \"quality Q, F fps, L s: B bytes\"."
                    },
                    "encodings": {
                      "type": "array",
                      "items": {"type": "string"},
                      "description": "Every encoding tried, in order; the last is the file's."
                    }
                  },
                  "required": ["name", "maxBytes", "maxDuration", "encoding", "encodings"],
                  "additionalProperties": false
                },
                "ms": {"type": "number", "minimum": 0, "description": "Wall time of the job in milliseconds."}
              },
              "required": ["output", "frames", "duration", "keyFrames", "flicker", "segmenter", "warnings", "ms"],
              "additionalProperties": false
            }
            """#),
    ]
}

extension ImageAnimatedStickerMethod: MCPToolMethod {
    static let tool = MCPTool(title: "Animated sticker", effects: .writesOutputs)
}

extension ImageAnimatedStickerMethod {
    static let estimatesMemory = true

    func memoryEstimate(for params: inout Params, context: RequestContext) async throws -> Int {
        _ = try Self.validate(params)
        let access = await services.access()
        // Before the job waits in line: an output it could never write is refused now.
        try Self.checkOutputs(params, access: access)
        // The clip is what is read: a Live Photo's `motion`, else `source`.
        if let motion = params.motion {
            if case .url(let u) = motion { params.motion = .fetched(u, try await services.loader.bytes(of: motion, access: access)) }
        } else if case .url(let u) = params.source {
            params.source = .fetched(u, try await services.loader.bytes(of: params.source, access: access))
        }
        return await Self.memoryEstimate(params.motion ?? params.source, fitsTarget: params.target != nil, services: services,
                                         access: access, on: services.computeJob(for: context))
    }

    /// A clip's estimate from its container's frame size; a clip whose container cannot be read is estimated as
    /// a 1080p one (its cut then says what is wrong with it).
    static func memoryEstimate(_ source: ImageSource, fitsTarget: Bool, services: WorkerServices, access: FileAccess,
                               on compute: ComputeJob) async -> Int {
        let info = try? await services.loader.motionInfo(source, access: access, on: compute)
        return MemoryEstimate.animated(width: info?.0.width ?? 1920, height: info?.0.height ?? 1080,
                                       encodedBytes: info?.bytes ?? 0, fitsTarget: fitsTarget)
    }
}
