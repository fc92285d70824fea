import Foundation
import Testing
@testable import Imaging

@Suite("Sticker region saliency", .timeLimit(.minutes(10)))
struct StickerRegionSaliencyTests {
    @Test(arguments: [50, 150, 300])
    func superpixelsPartitionTheImage(regions: Int) throws {
        let (image, _) = StickerScenes.disc()
        let work = try LabImage(image, maxSide: 160, on: .inTurn)
        let sp = try Superpixels(work, regions: regions, on: .inTurn)
        #expect(sp.labels.count == work.count)
        #expect(sp.labels.allSatisfy { $0 >= 0 && Int($0) < sp.count })
        #expect(sp.size.reduce(0, +) == work.count)
        // The grid rounds the requested count; it must stay in the same ballpark.
        #expect(sp.count >= regions / 2 && sp.count <= regions * 2)
        for i in 0..<sp.count {
            #expect(!sp.adjacent[i * sp.count + i])
            for j in 0..<sp.count { #expect(sp.adjacent[i * sp.count + j] == sp.adjacent[j * sp.count + i]) }
        }
        // Regions touching the border are exactly those with border pixels.
        #expect(sp.borderPixels.reduce(0, +) == 2 * (work.width + work.height) - 4)
    }

    @Test func superpixelsFollowAStrongColourEdge() throws {
        let (image, truth) = StickerScenes.disc()
        let work = try LabImage(image, maxSide: 160, on: .inTurn) // same size: no resampling blur
        let sp = try Superpixels(work, regions: 200, on: .inTurn)
        // Almost every region is one-sided: SLIC clusters in colour as well as space.
        var inside = [Int](repeating: 0, count: sp.count)
        for p in 0..<work.count where truth.values[p] != 0 { inside[Int(sp.labels[p])] += 1 }
        let mixed = (0..<sp.count).filter { sp.size[$0] > 0 && inside[$0] > 0 && inside[$0] < sp.size[$0] }
        let mixedPixels = mixed.reduce(0) { $0 + min(inside[$1], sp.size[$1] - inside[$1]) }
        #expect(mixedPixels * 100 < work.count)
    }

    @Test func discIsMoreSalientThanItsBackground() throws {
        let (image, truth) = StickerScenes.disc()
        let work = try LabImage(image, maxSide: 160, on: .inTurn)
        let values = try RobustBackgroundSaliency(work, on: .inTurn).values
        #expect(values.count == work.count)
        #expect(values.allSatisfy { $0 >= 0 && $0 <= 1 })
        var inSum: Float = 0, inCount: Float = 0, outSum: Float = 0, outCount: Float = 0
        for p in 0..<work.count {
            if truth.values[p] != 0 { inSum += values[p]; inCount += 1 } else { outSum += values[p]; outCount += 1 }
        }
        #expect(inSum / inCount > 0.7)
        #expect(outSum / outCount < 0.2)
    }

    @Test func flatImageGivesFiniteSaliency() throws {
        let image = Image(width: 40, height: 30, pixels: [UInt8](repeating: 128, count: 40 * 30 * 4))
        let values = try RobustBackgroundSaliency(LabImage(image, maxSide: 40, on: .inTurn), on: .inTurn).values
        #expect(values.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 })
    }

    @Test func blendedSaliencyStillFindsTheDisc() throws {
        let (image, truth) = StickerScenes.disc()
        let work = try LabImage(image, maxSide: 160, on: .inTurn)
        let map = try SaliencyMap(work, regionWeight: 1, on: .inTurn)
        var hits = 0, union = 0
        for p in 0..<work.count {
            let a = map.values[p] > map.threshold, b = truth.values[p] != 0
            if a && b { hits += 1 }
            if a || b { union += 1 }
        }
        #expect(Double(hits) / Double(union) > 0.8)
    }

    @Test func tinyImagesDoNotTrap() throws {
        for (w, h) in [(1, 1), (2, 7), (8, 3)] {
            let image = Image(width: w, height: h, pixels: (0..<(w * h * 4)).map { UInt8($0 * 37 % 256) })
            let values = try RobustBackgroundSaliency(LabImage(image, maxSide: 64, on: .inTurn), regions: 250, on: .inTurn).values
            #expect(values.count == w * h)
        }
    }
}

@Suite("Sticker saliency blending", .timeLimit(.minutes(10)))
struct StickerSaliencyBlendTests {
    @Test func weightZeroKeepsTheMapAndWeightOneFollowsTheRegionMap() throws {
        let (image, _) = StickerScenes.disc()
        let work = try LabImage(image, maxSide: 160, on: .inTurn)
        let map = try SaliencyMap(work, on: .inTurn)
        let region = try RobustBackgroundSaliency(work, on: .inTurn).values
        let same = map.blended(withRegion: region, weight: 0)
        #expect(zip(same.values, map.values).allSatisfy { abs($0 - $1) < 1e-5 })
        // A region map that is 1 only in the left half: at weight 1 the split must follow it.
        let left = (0..<work.count).map { Float(($0 % work.width) < work.width / 2 ? 1 : 0) }
        let blended = map.blended(withRegion: left, weight: 1)
        #expect(blended.values.allSatisfy { $0 >= 0 && $0 <= 1 })
        let y = work.height / 2
        #expect(blended.values[y * work.width + 2] > blended.threshold)
        #expect(blended.values[y * work.width + work.width - 3] < blended.threshold)
    }
}
