/// A band of decoded RGBA pixels handed to another thread for conversion.
///
/// `@unchecked Sendable` is sound here: the threads given bands of one buffer convert disjoint ranges of it (the
/// JPEG decoder hands off each band once libjpeg has written it and never touches it again; `ColorManagement`
/// gives each index of a `forEach` its own range), and both `ComputePool.pipelined` and `forEach` return, every
/// helper out of its body, before the buffer's scope ends, so the pointer never outlives the buffer.
struct PixelBand: @unchecked Sendable {
    let start: UnsafeMutablePointer<UInt8>
    let count: Int
}
