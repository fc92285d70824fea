import Compute
import Imaging
import Inference
@testable import PhotoWorker
import Testing

/// The network's map of a photo and its mirror image, scheduled both ways the sticker uses.
@Suite(.timeLimit(.minutes(10)))
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
        let together = try await SubjectNetwork.map(for: image, mirrored: true, networks: networks, on: PoolStages(ComputeJob(pool, lease: .unleased)))
        let onThreadsInTurn = try await SubjectNetwork.map(for: image, mirrored: true, networks: networks,
                                                           on: PoolStages(ComputeJob(pool, lease: .unleased), concurrent: false))
        let inline = try await SubjectNetwork.map(for: image, mirrored: true, networks: networks, on: InlineStages())
        #expect(together.values == onThreadsInTurn.values)
        #expect(together.values == inline.values)
        // The disc is the subject: the map is high at its centre and low in the corners.
        let w = together.width, h = together.height
        let centre = together.values[(h / 2) * w + w / 2], corners = (together.values[0], together.values[w * h - 1])
        #expect(centre > 0.5, "centre \(centre)")
        #expect(corners.0 < 0.5 && corners.1 < 0.5, "corners \(corners)")
    }

    /// A photo whose stages run one after another (a large one) hands its passes' blocks back before its cut, with
    /// one pass as with two; stages at once keep them for the next photo's passes.
    @Test(arguments: [false, true])
    func passesInTurnHandTheirBlocksBack(mirrored: Bool) async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let networks = try SubjectNetwork.Networks.load()
        let inTurn = ActivationMemory(), atOnce = ActivationMemory()
        _ = try await SubjectNetwork.map(for: Self.photo(), mirrored: mirrored, networks: networks,
                                         on: PoolStages(ComputeJob(pool, lease: .unleased), concurrent: false), memory: inTurn)
        _ = try await SubjectNetwork.map(for: Self.photo(), mirrored: mirrored, networks: networks,
                                         on: PoolStages(ComputeJob(pool, lease: .unleased)), memory: atOnce)
        #expect(inTurn.heldBytes == 0, "\(inTurn.heldBytes) bytes held after the passes in turn")
        #expect(atOnce.heldBytes > 0, "the passes at once kept nothing: a test that cannot fail")
    }

    @Test func aBoxUnderHalfThePhotoIsMappedGrownByATenthASide() {
        let region = SubjectNetwork.focusRegion(for: PixelRect(x: 100, y: 50, width: 50, height: 40), width: 240, height: 160)
        #expect(region == PixelRect(x: 95, y: 46, width: 60, height: 48), "\(String(describing: region))")
        // Clamped to the photo where the box reaches its edge or beyond.
        let edge = SubjectNetwork.focusRegion(for: PixelRect(x: -20, y: 0, width: 60, height: 50), width: 240, height: 160)
        #expect(edge == PixelRect(x: 0, y: 0, width: 44, height: 55), "\(String(describing: edge))")
        // Half the photo or more: the photo's own map sees the subject large enough.
        let half = SubjectNetwork.focusRegion(for: PixelRect(x: 0, y: 0, width: 120, height: 160), width: 240, height: 160)
        #expect(half == nil, "\(String(describing: half))")
        #expect(SubjectNetwork.focusRegion(for: PixelRect(x: 300, y: 0, width: 20, height: 20), width: 240, height: 160) == nil)
    }

    /// Without the mirror passes (one pass a map; the mirrored map's own schedule is tested above).
    @Test func theFocusedMapIsThePhotosMapAveragedWithTheRegionsOwn() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let image = Self.photo()
        let networks = try SubjectNetwork.Networks.load()
        let region = PixelRect(x: 60, y: 20, width: 120, height: 120)
        let focused = try await SubjectNetwork.map(for: image, focusedOn: region, longSide: 480, mirrored: false,
                                                   networks: networks, on: PoolStages(ComputeJob(pool, lease: .unleased)))
        let whole = try await SubjectNetwork.map(for: image, mirrored: false, networks: networks, on: InlineStages())
        let part = try await SubjectNetwork.map(for: image, region: region, mirrored: false, networks: networks, on: InlineStages())
        // The region is read in place, as the crop of the photo would be (its edge's taps aside).
        let crop = try await SubjectNetwork.map(for: Compositing.crop(image, x: 60, y: 20, width: 120, height: 120),
                                                mirrored: false, networks: networks, on: InlineStages())
        let worst = zip(part.values, crop.values).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 0.05, "largest difference from the cropped photo's map \(worst)")
        let expected = whole.averaged(with: part, of: region, photoWidth: 240, photoHeight: 160, longSide: 480)
        #expect(focused.width == 480 && focused.height == 320, "\(focused.width)x\(focused.height)")
        #expect(focused.values == expected.values)
    }
}
