import CKernels

/// The instruction set the C kernels run at (the `CKernels` target: this engine's Winograd transforms, pooling and
/// bilinear rows, and the sticker's box means and guided upsampling in Imaging; one setting for the process).
/// Every level computes the same floats; only the speed differs. The CPU's best level is used unless a test or a
/// benchmark asks for another.
public enum KernelLevel: Int32, CaseIterable, Sendable, CustomStringConvertible {
    /// x86-64 (SSE2), the baseline the Swift code is compiled for.
    case baseline = 0
    /// x86-64-v3: AVX2 and FMA (FMA unused: no contraction).
    case avx2 = 1
    /// x86-64-v4: AVX-512.
    case avx512 = 2

    /// The highest level this CPU runs.
    public static var supported: KernelLevel { KernelLevel(rawValue: ck_supported_level()) ?? .baseline }

    /// The level the kernels run at now.
    public static var current: KernelLevel { KernelLevel(rawValue: ck_current_level()) ?? .baseline }

    /// Makes the kernels run at `level` (at most ``supported``) from their next call on; returns the level chosen.
    @discardableResult
    public static func use(_ level: KernelLevel) -> KernelLevel {
        KernelLevel(rawValue: ck_use_level(level.rawValue)) ?? .baseline
    }

    /// The level named `baseline`, `avx2` or `avx512`.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    public var name: String {
        switch self {
        case .baseline: "baseline"
        case .avx2: "avx2"
        case .avx512: "avx512"
        }
    }

    public var description: String { name }
}
