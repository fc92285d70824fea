import Compute
import Imaging
import Inference

/// How an animated sticker's key frames are cut (``ClipCut``'s `.cutKeyFrame`): as a still is, both passes and the
/// same maps (``StickerStage/extract(_:outline:segmenter:on:memory:concurrentUpTo:cut:mirrored:)``); only the mask is
/// kept, the edge's colours are estimated on every frame as its mask is applied (``AnimatedFrame/cutOut()``).
struct KeyFrameCutter: Sendable {
    let compute: ComputePool
    let memory: ActivationMemory

    /// `prompt`, chosen on the key frame before, carried to this one along `motion`.
    func carry(_ prompt: SubjectPrompt, along motion: ClipCut.KeyFrameMotion) async throws -> SubjectPrompt {
        try await compute.run { prompt.carried(along: motion.flow, onto: motion.carried) }
    }

    /// The key frame's mask, of the subject `prompt` chooses (the main subject without one), and the segmenter
    /// that cut it.
    func mask(_ image: Image, prompt: SubjectPrompt?) async throws -> (Mask, Segmenter) {
        let cut = StickerCutSpec(subject: prompt.map { SubjectSpec($0) }, decontaminate: false)
        let (sticker, used) = try await StickerStage.extract(image, outline: nil, segmenter: .network, on: compute,
                                                             memory: memory, cut: cut)
        return (sticker.mask, used)
    }
}
