import Imaging
import JSONRPC
import JSONRPCTransport

/// `image.info {"source"}`: format, size and layout from the header alone (no full decode).
struct ImageInfoMethod: RPCMethod {
    static let name = "image.info"
    static let cost = MethodCost.waiting
    static let summary = "Format, size, channels, bit depth, alpha, orientation, frames and colour profile from the header."

    struct Params: Decodable, Sendable {
        var source: ImageSource
    }

    struct Result: Encodable, Sendable {
        var format: ImageFormat
        /// As displayed (after EXIF orientation).
        var width: Int
        var height: Int
        var channels: Int
        var bitDepth: Int
        var hasAlpha: Bool
        var orientation: Int
        var progressive: Bool
        var interlaced: Bool
        var iccProfileBytes: Int
        /// Animation frames (WebP, GIF) or top-level images (HEIF); only the first (primary) is processed.
        var frames: Int
        /// The colour space the file declares (an ICC profile's description, or CICP code points); absent
        /// means none, read as sRGB. Pixels are converted to sRGB at decode.
        var colorProfile: String?
        /// Size of the encoded file.
        var bytes: Int
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> Result {
        let access = await services.access()
        let (info, bytes) = try await services.loader.info(params.source, access: access)
        return Result(
            format: info.format, width: info.width, height: info.height, channels: info.channels,
            bitDepth: info.bitDepth, hasAlpha: info.hasAlpha, orientation: info.orientation,
            progressive: info.isProgressive, interlaced: info.isInterlaced,
            iccProfileBytes: info.iccProfileBytes, frames: info.frameCount,
            colorProfile: info.color?.description, bytes: bytes)
    }
}
