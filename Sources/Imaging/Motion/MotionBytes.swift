/// A copy of a source's bytes at a fixed address for as long as a C reader holds a pointer into them (a Swift
/// array's storage is only pinned inside `withUnsafeBufferPointer`).
final class MotionBytes {
    let buffer: UnsafeMutableBufferPointer<UInt8>

    init(_ bytes: [UInt8]) {
        buffer = .allocate(capacity: max(bytes.count, 1))
        _ = buffer.initialize(from: bytes)
        count = bytes.count
    }

    let count: Int
    var base: UnsafePointer<UInt8> { UnsafePointer(buffer.baseAddress!) }

    deinit { buffer.deallocate() }
}
