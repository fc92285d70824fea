import Imaging
import Inference

/// U²-Netp's subject map of a photo: the photo resized to the network's 320x320 (Lanczos), scaled by
/// its brightest channel value and normalised with ImageNet's mean and deviation (as rembg feeds it),
/// one forward pass, the sigmoid map back.
public enum SubjectNetwork {
    static let mean: [Float] = [0.485, 0.456, 0.406]
    static let std: [Float] = [0.229, 0.224, 0.225]

    /// - Parameter mirrored: also run the mirrored photo and average the two maps (one more pass;
    ///   steadier maps).
    /// - Throws: ``InferenceError`` if the model cannot be loaded; `CancellationError`.
    public static func map(for image: Image, mirrored: Bool) throws -> SubjectMap {
        let direct = try map(for: image)
        guard mirrored else { return direct }
        let flipped = try map(for: image.mirrored())
        let w = direct.width
        var values = direct.values
        for y in 0..<direct.height {
            for x in 0..<w { values[y * w + x] = 0.5 * (values[y * w + x] + flipped.values[y * w + (w - 1 - x)]) }
        }
        return SubjectMap(width: w, height: direct.height, values: values)
    }

    /// One pass on the photo as it is.
    static func map(for image: Image) throws -> SubjectMap {
        let network = try Network.u2netp.get()
        let size = network.inputWidth
        let small = try Resampler.resize(image, width: size, height: network.inputHeight)
        let plane = size * network.inputHeight
        var peak: UInt8 = 1
        for i in 0..<plane { peak = max(peak, small.pixels[4 * i], small.pixels[4 * i + 1], small.pixels[4 * i + 2]) }
        let scale = 1 / Float(peak)
        var data = [Float](repeating: 0, count: 3 * plane)
        for i in 0..<plane {
            for c in 0..<3 {
                data[c * plane + i] = (Float(small.pixels[4 * i + c]) * scale - mean[c]) / std[c]
            }
        }
        let out = try network.forward(Tensor(channels: 3, height: network.inputHeight, width: size, data: data)) {
            Cancellation.isRequested
        }
        return SubjectMap(width: out.width, height: out.height, values: out.data)
    }
}

extension Image {
    /// The image mirrored left to right.
    func mirrored() -> Image {
        var out = self
        for y in 0..<height {
            for x in 0..<width {
                let s = 4 * (y * width + (width - 1 - x)), d = 4 * (y * width + x)
                for c in 0..<4 { out.pixels[d + c] = pixels[s + c] }
            }
        }
        return out
    }
}
