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
        let network = try Network.u2netp.get()
        let w = network.inputWidth, h = network.inputHeight
        let small = try Resampler.resize(image, width: w, height: h)
        let input = tensor(small)
        var values = try network.forward(input) { Cancellation.isRequested }.data
        if mirrored {
            let flipped = try network.forward(Self.mirrored(input)) { Cancellation.isRequested }.data
            for y in 0..<h {
                for x in 0..<w { values[y * w + x] = 0.5 * (values[y * w + x] + flipped[y * w + (w - 1 - x)]) }
            }
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
