import Compute

/// One frame of an animated sticker whose mask is settled: the whole frame at the cut's size and its subject's mask
/// (not yet applied, cropped, outlined or laid out). ``cutOut(on:)`` applies it; the encoding side does, so that this
/// work runs beside the next frames' motion rather than on its path.
public struct AnimatedFrame: Sendable {
    /// How the mask becomes the frame's alpha.
    public enum Edge: Sendable {
        /// The frame is a sticker already: its alpha is its mask.
        case own
        /// The mask multiplies the frame's alpha.
        case plain
        /// As `plain`, and the soft edge takes the subject's own colour (``ForegroundEstimator``), as a still's.
        case decontaminated
    }

    public var image: Image
    public var mask: Mask
    public var duration: Double
    public var edge: Edge

    public init(image: Image, mask: Mask, duration: Double, edge: Edge) {
        (self.image, self.mask, self.duration, self.edge) = (image, mask, duration, edge)
    }

    /// The frame with its subject cut out (``KeyFrameMasks/cutOut(_:from:decontaminating:on:)``), over `loop`.
    /// - Throws: `CancellationError`.
    public func cutOut(on loop: some ParallelLoop) throws -> Image {
        var frame = image
        switch edge {
        case .own: break
        case .plain: try KeyFrameMasks.cutOut(mask, from: &frame, decontaminating: false, on: loop)
        case .decontaminated: try KeyFrameMasks.cutOut(mask, from: &frame, decontaminating: true, on: loop)
        }
        return frame
    }
}
