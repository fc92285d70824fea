import Compute

/// A band of bytes (decoded RGBA pixels, a mask) handed to another thread to convert or blur.
///
/// `@unchecked Sendable` is sound here: the threads given bands of one buffer write disjoint ranges of it (the
/// JPEG decoder hands off each band once libjpeg has written it and never touches it again; `ColorManagement`
/// gives each index of a `forEach` its own range; `MaskFeather` each band its own rows, the rows around them read
/// from copies made before any band starts), and both `ComputePool.pipelined` and `forEach` return, every helper
/// out of its body, before the buffer's scope ends, so the pointer never outlives the buffer.
struct PixelBand: @unchecked Sendable {
    let start: UnsafeMutablePointer<UInt8>
    let count: Int
}
