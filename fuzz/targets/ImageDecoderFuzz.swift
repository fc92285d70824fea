// libFuzzer target: ImageCodec.info + ImageCodec.decode on one format, with a small pixel limit.
// Links the instrumented Imaging module that fuzz/run.sh builds once; FUZZ_JPEG, FUZZ_WEBP, FUZZ_GIF or
// FUZZ_HEIF selects the format at compile time, otherwise it is the PNG one.
import Imaging

//
// Inputs that do not start with the format's magic get it prepended, so the mutator spends its time
// inside libpng/libjpeg instead of in the format sniffer. Two option bits come from the input length,
// so truncated-data recovery and shrink-on-load (JPEG DCT scaling) are reached too.

#if FUZZ_JPEG
private let magic: [UInt8] = [0xFF, 0xD8, 0xFF]
#elseif FUZZ_WEBP
private let magic: [UInt8] = Array("RIFF".utf8)
#elseif FUZZ_GIF
private let magic: [UInt8] = Array("GIF8".utf8)
#elseif FUZZ_HEIF
// An ftyp box (24 bytes) naming HEIC and AVIF brands; the seeds carry their own.
private let magic: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1avif".utf8)
#else
private let magic: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
#endif

/// 1 Mpx: enough for the seed photos after shrink-on-load, small enough to keep executions fast and
/// to exercise the header limit.
private let fuzzMaxPixels = 1 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func imageDecoderFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    var bytes = Array(UnsafeBufferPointer(start: start, count: count))
    if !bytes.starts(with: magic) { bytes = magic + bytes }
    let info = try? ImageCodec.info(bytes)
    let options = DecodeOptions(
        maxPixels: fuzzMaxPixels,
        allowTruncated: count & 1 == 1,
        minimumSize: count & 2 == 2 ? (width: 16, height: 16) : nil)
    do {
        let decoded = try ImageCodec.decode(bytes, options: options, on: .inTurn)
        let image = decoded.image
        precondition(image.width > 0 && image.height > 0, "decoded an empty image")
        precondition(image.pixels.count == image.width * image.height * 4, "pixel buffer size does not match")
        precondition(image.width * image.height <= fuzzMaxPixels * 1, "decoded more pixels than the limit")
        precondition(info != nil, "decode succeeded where info failed")
    } catch {
        // Every failure must be a typed ImagingError (no cancellation here).
        precondition(error is ImagingError, "untyped error \(type(of: error))")
    }
    return 0
}
