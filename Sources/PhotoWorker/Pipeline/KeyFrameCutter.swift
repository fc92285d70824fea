import Compute
import Imaging
import Inference

/// How an animated sticker's key frames are cut (``ClipCut``'s `.cutKeyFrame`): as a still is, both passes and the
/// same maps (``StickerStage/subjectCut(_:segmenter:on:memory:concurrentUpTo:cut:mirrored:)``), the network asked for
/// the subject's mask and no sticker made of it: the edge's colours are estimated on every frame as its mask is applied
/// (``AnimatedFrame/cutOut(on:)``).
///
/// A clip whose frames are over ``concurrentStagesUpTo`` pixels as stored has each key frame's stages (the network's
/// two passes among them) run one after another: the same mask, with one pass's activations at a time beside what
/// the video decoder holds for such a stream (a 4K HEVC stream's reference frames).
struct KeyFrameCutter: Sendable {
    let compute: ComputeJob
    let memory: ActivationMemory
    /// Whether a key frame's stages may run at once (chosen by ``init(compute:memory:sourcePixels:)``).
    let concurrentStages: Bool

    /// Sources up to this many pixels a frame (twice 1080p's) have a key frame's stages at once: above it they ran
    /// one after another, for the clip's peak (bench/README.md, "The 4K clip's peak").
    static let concurrentStagesUpTo = 4_147_200

    /// - Parameter sourcePixels: the clip's frame size as stored, width x height.
    init(compute: ComputeJob, memory: ActivationMemory, sourcePixels: Int) {
        self.compute = compute
        self.memory = memory
        concurrentStages = sourcePixels <= Self.concurrentStagesUpTo
    }

    /// `prompt`, chosen on the key frame before, carried to this one along `motion`.
    func carry(_ prompt: SubjectPrompt, along motion: ClipCut.KeyFrameMotion) async throws -> SubjectPrompt {
        try await compute.run { prompt.carried(along: motion.flow, onto: motion.carried) }
    }

    /// The key frame's mask, of the subject `prompt` chooses (the main subject without one), and the segmenter
    /// that cut it.
    func mask(_ image: Image, prompt: SubjectPrompt?) async throws -> (Mask, Segmenter) {
        let cut = StickerCutSpec(subject: prompt.map { SubjectSpec($0) }, decontaminate: false)
        let (subject, used) = try await StickerStage.subjectCut(image, segmenter: .network, on: compute, memory: memory,
                                                                concurrentUpTo: concurrentStages ? .max : 0, cut: cut)
        return (subject.mask, used)
    }
}
