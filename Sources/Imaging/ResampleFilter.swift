import Foundation

/// The reconstruction kernel used by ``Resampler``.
///
/// Every filter is evaluated in source-pixel units; when downscaling, ``Resampler`` stretches the
/// kernel by the scale factor so that it also acts as the low-pass (anti-alias) filter.
public enum ResampleFilter: String, Sendable, CaseIterable, Codable {
    /// Windowed sinc with three lobes: the sharpest general-purpose choice, slight ringing.
    case lanczos3
    /// Triangle (tent) kernel; "bilinear" when upscaling, a cheap smooth average when downscaling.
    case bilinear
    /// Box kernel: exact area averaging when downscaling, nearest-neighbour-like when upscaling.
    case box

    /// Half-width of the kernel at scale 1, in source pixels.
    var support: Double {
        switch self {
        case .lanczos3: 3
        case .bilinear: 1
        case .box: 0.5
        }
    }

    /// The kernel value at distance `x` (source pixels at scale 1).
    func weight(_ x: Double) -> Double {
        switch self {
        case .lanczos3:
            let ax = abs(x)
            if ax >= 3 { return 0 }
            return Self.sinc(ax) * Self.sinc(ax / 3)
        case .bilinear:
            let ax = abs(x)
            return ax < 1 ? 1 - ax : 0
        case .box:
            // Half-open so that a sample exactly between two pixels is not counted twice.
            return (x >= -0.5 && x < 0.5) ? 1 : 0
        }
    }

    private static func sinc(_ x: Double) -> Double {
        if x < 1e-9 { return 1 }
        let px = Double.pi * x
        return sin(px) / px
    }
}
