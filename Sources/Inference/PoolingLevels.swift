/// Where a resize goes when a network's input size changes. Every resize in this family of networks
/// upsamples to a skip tensor's size, which is one of the input's pooling levels (each the ceil-half
/// of the one before): a resize to level `k` at the old size goes to level `k` at the new one.
struct PoolingLevels {
    private let fromHeights: [Int], fromWidths: [Int], toHeights: [Int], toWidths: [Int]

    init(fromHeight: Int, fromWidth: Int, toHeight: Int, toWidth: Int) throws {
        guard toHeight > 0, toWidth > 0 else { throw InferenceError.badInput("input size \(toHeight)x\(toWidth)") }
        func levels(_ side: Int) -> [Int] {
            var sides = [side]
            while let last = sides.last, last > 1 { sides.append((last + 1) / 2) }
            return sides
        }
        fromHeights = levels(fromHeight); fromWidths = levels(fromWidth)
        toHeights = levels(toHeight); toWidths = levels(toWidth)
    }

    /// The new target of a resize to `height` x `width` at the old input size.
    /// - Throws: ``InferenceError/modelDamaged(_:)`` for a size that is no pooling level.
    func target(height: Int, width: Int) throws -> (height: Int, width: Int) {
        guard let h = fromHeights.firstIndex(of: height), let w = fromWidths.firstIndex(of: width),
              h < toHeights.count, w < toWidths.count else {
            throw InferenceError.modelDamaged("resize to \(height)x\(width) is no pooling level of the input")
        }
        return (toHeights[h], toWidths[w])
    }
}
