/// Float buffers of one forward pass, reused as tensors die: the U-structure allocates the same few
/// sizes over and over, and fresh multi-megabyte arrays cost a page fault per 4 KiB each time.
/// Per pass (per-task scratch), never shared.
final class BufferPool {
    private var free: [Int: [[Float]]] = [:]
    /// The column matrix of the 3x3 convolutions, grown to the largest band once.
    var columns: [Float] = []

    /// A buffer of `count` floats with unspecified contents (every op writes all of its output).
    func take(_ count: Int) -> [Float] {
        if var list = free[count], let buffer = list.popLast() {
            free[count] = list
            return buffer
        }
        return [Float](repeating: 0, count: count)
    }

    /// Returns a dead tensor's storage.
    func give(_ buffer: [Float]) {
        free[buffer.count, default: []].append(buffer)
    }
}
