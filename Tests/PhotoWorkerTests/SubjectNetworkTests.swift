import Compute
import Imaging
@testable import PhotoWorker
import Testing

/// The network's map of a photo and its mirror image, scheduled both ways the sticker uses.
struct SubjectNetworkTests {
    /// A light disc on a darker gradient: a subject the network finds.
    static func photo(width: Int = 240, height: Int = 160) -> Image {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x - width / 2), dy = Double(y - height / 2)
                let inside = dx * dx + dy * dy < Double(height * height) / 9
                let i = 4 * (y * width + x)
                pixels[i] = inside ? 230 : UInt8(40 + x * 80 / width)
                pixels[i + 1] = inside ? 120 : UInt8(60 + y * 60 / height)
                pixels[i + 2] = inside ? 40 : 90
            }
        }
        return Image(width: width, height: height, pixels: pixels)
    }

    @Test func thePassesAtOnceAndOneAfterTheOtherGiveTheSameMap() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let image = Self.photo()
        let networks = try SubjectNetwork.Networks.load()
        let together = try await SubjectNetwork.map(for: image, mirrored: true, networks: networks, on: PoolStages(pool))
        let onThreadsInTurn = try await SubjectNetwork.map(for: image, mirrored: true, networks: networks,
                                                           on: PoolStages(pool, concurrent: false))
        let inline = try await SubjectNetwork.map(for: image, mirrored: true, networks: networks)
        #expect(together.values == onThreadsInTurn.values)
        #expect(together.values == inline.values)
        // The disc is the subject: the map is high at its centre and low in the corners.
        let w = together.width, h = together.height
        let centre = together.values[(h / 2) * w + w / 2], corners = (together.values[0], together.values[w * h - 1])
        #expect(centre > 0.5, "centre \(centre)")
        #expect(corners.0 < 0.5 && corners.1 < 0.5, "corners \(corners)")
    }
}
