import Compute

/// A per-image effect; a list of them is applied in order by ``Image/applying(_:on:)``.
public enum ImageEffect: Sendable, Equatable {
    /// Gaussian blur with standard deviation `radius` pixels (0 = no-op), approximated by three
    /// box passes per axis so its cost does not grow with the radius. Premultiplied, so
    /// transparent areas do not darken the edges they blur into. Radii larger than the image's
    /// longest side are treated as that side (the result is already a near-uniform average).
    case blur(radius: Double)
    /// Multiplies alpha by a factor in 0...1.
    case opacity(Double)
    /// Replaces colour by its Rec. 601 luma; alpha is kept.
    case grayscale
}

/// Why an effect list was refused. Cancellation is reported as `CancellationError`.
public enum ImageEffectError: Error, Sendable, Equatable {
    /// Blur radius is negative, NaN or infinite.
    case invalidBlurRadius(Double)
    /// Opacity is outside 0...1 or NaN.
    case invalidOpacity(Double)
}

extension Image {
    /// The image with `effects` applied in order (each one sees the previous one's output).
    ///
    /// All parameters are validated before any pixel work starts.
    /// - Throws: ``ImageEffectError`` for an invalid parameter; `CancellationError` when `loop` is
    ///   cancelled during a blur (``InTurnLoop``, the loop for code off the compute pool: the calling task).
    public func applying(_ effects: [ImageEffect], on loop: some ParallelLoop) throws -> Image {
        for effect in effects {
            switch effect {
            case .blur(let r) where !(r.isFinite && r >= 0): throw ImageEffectError.invalidBlurRadius(r)
            case .opacity(let o) where !(o >= 0 && o <= 1): throw ImageEffectError.invalidOpacity(o)
            default: break
            }
        }
        var result = self
        for effect in effects {
            switch effect {
            case .blur(let radius): result = try GaussianBlur.apply(result, sigma: radius, on: loop)
            case .opacity(let factor): result.scaleAlpha(by: factor)
            case .grayscale: result.convertToGrayscale()
            }
        }
        return result
    }

    private mutating func scaleAlpha(by factor: Double) {
        if factor == 1 { return }
        // 16.16 fixed point: exact for 0 and 1, rounds to nearest in between.
        let k = UInt32((factor * 65536).rounded())
        pixels.withUnsafeMutableBufferPointer { p in
            var i = 3
            while i < p.count {
                p[i] = UInt8((UInt32(p[i]) * k + 32768) >> 16)
                i += 4
            }
        }
    }

    private mutating func convertToGrayscale() {
        pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                // Rec. 601 weights scaled by 2^16 (sum 65536, so white stays 255).
                let y = (19595 * UInt32(p[i]) + 38470 * UInt32(p[i + 1]) + 7471 * UInt32(p[i + 2]) + 32768) >> 16
                let v = UInt8(y)
                p[i] = v; p[i + 1] = v; p[i + 2] = v
                i += 4
            }
        }
    }
}
