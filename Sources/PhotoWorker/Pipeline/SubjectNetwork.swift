import CSyscalls
import Imaging
import Inference

/// U²-Netp's subject map of a photo: the photo resized to the network's 320x320 (Lanczos), scaled by
/// its brightest channel value and normalised with ImageNet's mean and deviation (as rembg feeds it),
/// one forward pass, the sigmoid map back.
public enum SubjectNetwork {
    static let mean: [Float] = [0.485, 0.456, 0.406]
    static let std: [Float] = [0.229, 0.224, 0.225]

    /// - Parameter mirrored: also run the mirror image and average the two maps (one more pass on
    ///   the 320x320 copy; steadier maps).
    /// - Throws: ``InferenceError`` if the model cannot be loaded; `CancellationError`.
    public static func map(for image: Image, mirrored: Bool) throws -> SubjectMap {
        let input = try self.input(for: image)
        let map = try pass(input)
        return mirrored ? average(map, mirroredMap: try pass(Self.mirrored(input))) : map
    }

    /// The map of the photo and of its mirror image, averaged. On a photo of up to
    /// `concurrentPassPixels` the two passes run at once, one per compute thread (two independent
    /// stages, and most of a sticker's latency). On a larger one they run one after the other: each
    /// pass holds ~50 MB of activations, which would stack on the large photo's own buffers, while
    /// its time is a small part of such a sticker's. The freed activations are then handed back to
    /// the system before the cut: malloc keeps them in its arenas otherwise (its mmap threshold has
    /// risen to their size), where the cut's full-size buffers do not fit (a 24-megapixel sticker
    /// peaked 45 MB higher).
    static func mirroredMap(for image: Image, on compute: ComputePool,
                            concurrentUpTo limit: Int = concurrentPassPixels) async throws -> SubjectMap {
        let input = try await compute.run { try Self.input(for: image) }
        guard image.width * image.height <= limit else {
            return try await compute.run {
                defer { _ = cs_malloc_trim() }
                return average(try pass(input), mirroredMap: try pass(mirrored(input)))
            }
        }
        async let direct = compute.run { try pass(input) }
        async let flipped = compute.run { try pass(mirrored(input)) }
        return average(try await direct, mirroredMap: try await flipped)
    }

    /// Photos up to this many pixels get their two passes at once (12 megapixels, 48 MB decoded).
    static let concurrentPassPixels = 12_000_000

    /// The photo as the network takes it: resized to its input size (Lanczos) and normalised.
    static func input(for image: Image) throws -> Tensor {
        let network = try Network.u2netp.get()
        return tensor(try Resampler.resize(image, width: network.inputWidth, height: network.inputHeight))
    }

    /// One forward pass: the sigmoid map at the network's size.
    static func pass(_ input: Tensor) throws -> SubjectMap {
        let map = try Network.u2netp.get().forward(input) { Cancellation.isRequested }
        return SubjectMap(width: map.width, height: map.height, values: map.data)
    }

    /// The mean of a map and the map of the mirror image, flipped back.
    static func average(_ map: SubjectMap, mirroredMap flipped: SubjectMap) -> SubjectMap {
        let w = map.width, h = map.height
        var values = map.values
        for y in 0..<h {
            for x in 0..<w { values[y * w + x] = 0.5 * (values[y * w + x] + flipped.values[y * w + (w - 1 - x)]) }
        }
        return SubjectMap(width: w, height: h, values: values)
    }

    /// The network's input for a photo already at its size.
    static func tensor(_ small: Image) -> Tensor {
        .normalizedRGB(rgba: small.pixels, width: small.width, height: small.height, size: small.width, mean: mean, std: std)
    }

    /// The tensor mirrored left to right.
    static func mirrored(_ t: Tensor) -> Tensor {
        var out = t
        for c in 0..<t.channels {
            for y in 0..<t.height {
                let row = (c * t.height + y) * t.width
                for x in 0..<t.width { out.data[row + x] = t.data[row + t.width - 1 - x] }
            }
        }
        return out
    }
}
