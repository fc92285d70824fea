import Compute
import CCodecs
import Synchronization

/// What a decoder found about a file's colours, before anything is converted.
enum EmbeddedColor: Sendable {
    case icc([UInt8])
    /// CICP from a HEIF `nclx` box, with the chromaticities libheif derived from the primaries code
    /// (red, green, blue, white; x then y).
    case cicp(primaries: Int, transfer: Int, chromaticities: [Float])

    /// The ICC profile's bytes (nil for CICP), for ``ImageMetadata/iccProfile``.
    var iccProfile: [UInt8]? {
        if case .icc(let bytes) = self { return bytes }
        return nil
    }

    /// Code points that mean sRGB (BT.709 primaries with the sRGB or BT.709 curve, or unspecified): nothing to do.
    var isSRGBByDefinition: Bool {
        guard case .cicp(let primaries, let transfer, _) = self else { return false }
        return [1, 2].contains(primaries) && [1, 2, 6, 13, 14, 15].contains(transfer)
    }
}

/// An lcms2 transform from one source colour space to sRGB on RGBA8 (alpha untouched).
///
/// `@unchecked Sendable` is sound here: the lcms2 transform is created without its one-pixel cache
/// (`cmsFLAGS_NOCACHE`, see cc_lcms.c), its only mutable state, so `cmsDoTransform` only reads it, and the
/// fixed-point tables of the matrix-shaper path are written once, before this object exists; so any number of
/// threads may apply it at once. The pointer is owned by this object and freed once, in `deinit`.
final class ColorTransform: @unchecked Sendable {
    private let pointer: OpaquePointer
    /// The transform leaves every sampled colour within one step: the source is sRGB in effect.
    let isIdentity: Bool
    let name: String

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
        isIdentity = cc_icc_transform_is_identity(pointer) != 0
        name = String(cString: cc_icc_transform_description(pointer))
    }

    deinit { cc_icc_transform_destroy(pointer) }

    /// For a matrix-shaper profile, the largest difference (in 8-bit steps) between the fixed-point fast path and
    /// lcms2's own transform over a 33x33x33 grid; nil when lcms2 converts. For tests.
    var fastPathError: Int? {
        let e = cc_icc_transform_fast_error(pointer)
        return e < 0 ? nil : Int(e)
    }

    func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
        cc_icc_transform_apply(pointer, pixels, count)
    }
}

/// Conversion of decoded pixels to sRGB, with one transform per distinct source kept for the process.
///
/// Building an lcms2 transform costs about a millisecond and a photo library holds few distinct profiles
/// (a camera's, a phone's Display P3, Adobe RGB), so transforms are cached by the profile's exact bytes.
public enum ColorManagement {
    /// Pixels converted between two cancellation checks.
    static let band = 1 << 18

    private enum Key: Hashable {
        case icc([UInt8])
        case cicp(transfer: Int, chromaticities: [Float])
    }

    /// At most this many transforms are kept; when full, the cache starts afresh (profiles are few).
    private static let capacity = 32
    /// Profiles are keyed by their exact bytes; larger ones (real profiles are 0.5-20 KB, a JPEG may carry up to
    /// 16 MB) are converted with a transform of their own, so a stream of hostile profiles cannot fill memory.
    private static let largestCachedProfile = 64 << 10
    private static let cache = Mutex<[Key: Result<ColorTransform, ImagingError>]>([:])

    /// The transform to sRGB for `color`, or the reason none can be built.
    static func transform(for color: EmbeddedColor, format: ImageFormat) -> Result<ColorTransform, ImagingError> {
        let key: Key
        switch color {
        case .icc(let bytes): key = .icc(bytes)
        case .cicp(_, let transfer, let xy): key = .cicp(transfer: transfer, chromaticities: xy)
        }
        var cacheable = true
        if case .icc(let bytes) = color, bytes.count > largestCachedProfile { cacheable = false }
        if cacheable, let hit = cache.withLock({ $0[key] }) { return hit }
        var error = [CChar](repeating: 0, count: 160)
        let made: OpaquePointer? = error.withUnsafeMutableBufferPointer { e in
            switch color {
            case .icc(let bytes):
                return bytes.withUnsafeBufferPointer { cc_icc_transform_create($0.baseAddress, $0.count, e.baseAddress, e.count) }
            case .cicp(_, let transfer, let xy):
                guard xy.count == 8 else { return nil }
                return xy.withUnsafeBufferPointer { cc_icc_transform_create_nclx($0.baseAddress, Int32(transfer), e.baseAddress, e.count) }
            }
        }
        let result: Result<ColorTransform, ImagingError>
        if let made {
            result = .success(ColorTransform(made))
        } else {
            let text = error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            result = .failure(.invalidImage(format: format, message: "colour profile: \(text.isEmpty ? "unusable" : text)"))
        }
        if cacheable {
            cache.withLock { entries in
                if entries.count >= capacity { entries.removeAll() }
                entries[key] = result
            }
        }
        return result
    }

    /// What `info` reports for a file's colours.
    static func describe(_ color: EmbeddedColor?, format: ImageFormat) -> ColorDescription? {
        guard let color else { return nil }
        var transform: ColorTransform? = nil
        if case .icc = color { transform = try? self.transform(for: color, format: format).get() }
        return describe(color, using: transform)
    }

    /// A file's colours, named from the transform already made for them (an ICC profile's description tag).
    static func describe(_ color: EmbeddedColor, using transform: ColorTransform?) -> ColorDescription {
        switch color {
        case .icc(let bytes): return .icc(name: transform?.name ?? "", bytes: bytes.count)
        case .cicp(let primaries, let transfer, _): return .cicp(primaries: primaries, transfer: transfer)
        }
    }

    /// The transform a decode needs, or nil when its pixels are sRGB already (no description, sRGB code points or
    /// profile). A profile lcms2 cannot use gives nil and a warning: a photo with a broken profile is still a photo,
    /// left as stored.
    static func converter(for color: EmbeddedColor?, format: ImageFormat, warnings: inout [String]) -> ColorTransform? {
        guard let color, !color.isSRGBByDefinition else { return nil }
        switch transform(for: color, format: format) {
        case .success(let t): return t.isIdentity ? nil : t
        case .failure(let error):
            warnings.append("\(error.message); pixels left as stored")
            return nil
        }
    }

    /// Converts a decode to sRGB in place when its file declared other colours (see ``converter(for:format:warnings:)``).
    /// - Throws: `CancellationError` (checked between bands of pixels).
    static func convertToSRGB(_ decoded: inout DecodedImage, from color: EmbeddedColor?, on loop: some ParallelLoop) throws {
        guard let color, let converter = converter(for: color, format: decoded.metadata.format, warnings: &decoded.warnings)
        else { return }
        try convert(&decoded.image, with: converter, on: loop)
        decoded.metadata.convertedFrom = describe(color, using: converter)
    }

    /// Converts `image` band by band, spread over `loop` (a compute piece's idle threads take bands too).
    static func convert(_ image: inout Image, with transform: ColorTransform, on loop: some ParallelLoop) throws {
        let count = image.pixelCount
        let bands = (count + band - 1) / band
        try image.pixels.withUnsafeMutableBufferPointer { p in
            let pixels = PixelBand(start: p.baseAddress!, count: count)
            let convertBand: @Sendable (Int, Int) throws -> Void = { _, i in
                try loop.checkCancellation()
                let start = i * band
                transform.apply(pixels.start + start * 4, count: min(band, pixels.count - start))
            }
            try loop.forEach(bands, convertBand)
        }
    }
}
