import Compute
import Imaging
import Synchronization
import Testing

/// Runs stages inline and counts them: what the graph ran, seen from outside.
final class CountingStages: StageRunner {
    private let count = Mutex(0)
    var stages: Int { count.withLock { $0 } }

    func stage<T: Sendable>(_ body: @escaping @Sendable (InTurnLoop) throws -> T) async throws -> T {
        count.withLock { $0 += 1 }
        return try body(.inTurn)
    }
}

/// The shortcut of ``StickerOptions/learnedMapAloneWhenDecisive``: a decisive learned map alone makes the same
/// cut-out as the full pipeline with the map weighted 1 (the classical maps then count for nothing), and an
/// undecided map changes nothing.
@Suite(.timeLimit(.minutes(10)))
struct StickerLearnedOnlyTests {
    /// A map of the disc: `inside` within it, `outside` elsewhere (at a coarser size than the photo, as the
    /// network's is).
    static func discMap(inside: Float, outside: Float) -> SubjectMap {
        let w = 80, h = 60
        var values = [Float](repeating: outside, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let dx = (Double(x) + 0.5) * 2 - 84, dy = (Double(y) + 0.5) * 2 - 58
                if dx * dx + dy * dy <= 30 * 30 { values[y * w + x] = inside }
            }
        }
        return SubjectMap(width: w, height: h, values: values)
    }

    static func expectSame(_ a: Sticker, _ b: Sticker, sourceLocation: SourceLocation = #_sourceLocation) {
        let differing = zip(a.mask.values, b.mask.values).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) mask values differ", sourceLocation: sourceLocation)
        #expect(a.boundingBox == b.boundingBox, "\(a.boundingBox) vs \(b.boundingBox)", sourceLocation: sourceLocation)
        #expect(a.confidence == b.confidence, "\(a.confidence) vs \(b.confidence)", sourceLocation: sourceLocation)
    }

    @Test func aDecisiveMapAloneCutsAsTheFullPipelineAtWeightOne() async throws {
        let (image, truth) = StickerScenes.disc()
        let map = Self.discMap(inside: 0.98, outside: 0.01)
        let decisive = map.isDecisive
        #expect(decisive)
        var full = StickerOptions(workingSize: 160)
        full.subjectMapWeight = 1
        full.subjectMapExponent = 0.5
        var shortcut = full
        shortcut.learnedMapAloneWhenDecisive = true
        shortcut.subjectMapWeight = 0.8  // ignored: without classical maps the map is the whole prior
        let a = try await StickerExtractor.extract(from: image, options: full, subjectMap: { map }, on: InlineStages())
        let counted = CountingStages()
        let b = try await StickerExtractor.extract(from: image, options: shortcut, subjectMap: { map }, on: counted)
        Self.expectSame(a, b)
        // The working copy, two cuts, the cut-out: no classical maps, no face search.
        #expect(counted.stages == 4, "\(counted.stages) stages ran")
        let iou = b.mask.intersectionOverUnion(truth)
        #expect(iou > 0.9, "IoU \(iou)")
    }

    @Test(arguments: [(Float(0.5), Float(0.4)), (0.3, 0.001), (0.001, 0.001)])
    func anUndecidedMapKeepsTheClassicalMaps(inside: Float, outside: Float) async throws {
        let (image, _) = StickerScenes.disc()
        let map = Self.discMap(inside: inside, outside: outside)
        let decisive = map.isDecisive
        #expect(!decisive, "a map of \(inside) / \(outside)")
        var full = StickerOptions(workingSize: 160)
        full.subjectMapWeight = 0.8
        var shortcut = full
        shortcut.learnedMapAloneWhenDecisive = true
        let a = try await StickerExtractor.extract(from: image, options: full, subjectMap: { map }, on: InlineStages())
        let counted = CountingStages()
        let b = try await StickerExtractor.extract(from: image, options: shortcut, subjectMap: { map }, on: counted)
        Self.expectSame(a, b)
        // The working copy (made beside the map, unused here), the classical maps, the face search, two cuts,
        // the cut-out.
        #expect(counted.stages == 6, "\(counted.stages) stages ran")
    }
}
