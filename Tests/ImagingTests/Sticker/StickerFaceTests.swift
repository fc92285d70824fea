import Compute
import Deadlines
import Foundation
import Testing
@testable import Imaging

/// The face detector (OpenCV's cascade run as OpenCV runs it) and the person prior it feeds.
@Suite("Sticker faces", .timeLimit(.minutes(10)))
struct StickerFaceTests {
    static func corpusImage(_ name: String) throws -> Image {
        let jpeg = try [UInt8](Data(contentsOf: StickerCorpusTests.corpus.appendingPathComponent("images/\(name).jpg")))
        return try ImageCodec.decode(jpeg, on: .inTurn).image
    }

    static func corpusMask(_ name: String) throws -> Mask {
        let png = try [UInt8](Data(contentsOf: StickerCorpusTests.corpus.appendingPathComponent("masks/\(name).png")))
        let image = try ImageCodec.decode(png, on: .inTurn).image
        var mask = Mask(width: image.width, height: image.height, repeating: 0)
        for p in 0..<image.pixelCount where image.pixels[4 * p] >= 128 { mask.values[p] = 255 }
        return mask
    }

    @Test func compiledInCascadeParsesWhole() throws {
        let cascade = try #require(HaarCascade.frontalFace)
        #expect(cascade.windowWidth == 20 && cascade.windowHeight == 20)
        #expect(cascade.stages.count == 20)
        #expect(cascade.trees.count == 1047)
        #expect(cascade.featureStart.count - 1 == 2094)
        #expect(cascade.packed(stride: 321) != nil)
        #expect(cascade.twoNodeTrees)
    }

    @Test(arguments: [
        "cascade 20 20 1 1\nstage 0.5 1\ntree 1 0 -1 0 0.1 0.2 0.3\nfeature 1 15 0 6 4 -1\n",  // rect leaves the window
        "cascade 20 20 2 1\nstage 0.5 1\ntree 1 0 -1 0 0.1 0.2 0.3\nfeature 1 0 0 6 4 -1\n",   // one stage of two
        "cascade 20 20 1 1\nstage 0.5 1\ntree 1 0 -1 3 0.1 0.2 0.3\nfeature 1 0 0 6 4 -1\n",   // missing feature 3
        "cascade 20 20 1 1\nstage 0.5 1\ntree 1 0 -1 0 0.1 0.2\nfeature 1 0 0 6 4 -1\n",       // a leaf short
        "cascade 20 20 1 1\nstage 0.5 1\ntree 1 0 -1 0 0.1 0.2 0.3\nlbp 1 0 0 6 4 -1\n",       // unknown record
        "cascade 20 20 1 1\nstage 0.5 1\ntree 2 1 0 0 0.1 1 -1 0 0.2 0.1 0.2 0.3\nfeature 1 0 0 6 4 -1\n", // node 1 loops to itself
        // Two stages declaring 1 and 2 trees, followed by 2 and 1: the total agrees, the stages do not.
        "cascade 20 20 2 1\nstage 0.5 1\ntree 1 0 -1 0 0.1 0.2 0.3\ntree 1 0 -1 0 0.1 0.2 0.3\nstage 0.5 2\ntree 1 0 -1 0 0.1 0.2 0.3\nfeature 1 0 0 6 4 -1\n",
        "cascade 20 20 1 1\ntree 1 0 -1 0 0.1 0.2 0.3\nstage 0.5 0\nfeature 1 0 0 6 4 -1\n",  // a tree before any stage
    ])
    func malformedCascadeTextIsRejected(text: String) {
        #expect(HaarCascade(text: text) == nil)
    }

    @Test func wellFormedMinimalCascadeParses() throws {
        let cascade = try #require(HaarCascade(text: "cascade 20 20 1 1\nstage 0.5 1\ntree 1 0 -1 0 0.1 0.2 0.3\nfeature 2 0 0 6 4 -1 0 2 6 2 2\n"))
        #expect(cascade.rects.count == 2 && cascade.leaves == [0.2, 0.3])
        #expect(!cascade.twoNodeTrees)  // a stump: the scan walks it node by node
    }

    /// OpenCV 4.10's `detectMultiScale(equalizeHist(grey), 1.1, 5)` finds this face at
    /// (62, 139, 201 × 201) on the 321 × 481 photo.
    @Test func findsThePortraitsFaceWhereOpenCVDoes() throws {
        let faces = try FaceDetector.detect(in: Self.corpusImage("260081"), maxSide: 320, minRelativeSize: 0.1, on: .inTurn)
        #expect(faces.count == 1)
        let face = try #require(faces.first)
        #expect(abs(face.x + face.width / 2 - 162) <= 15 && abs(face.y + face.height / 2 - 239) <= 15)
        #expect((170...235).contains(face.width))
    }

    @Test func findsEveryFaceOfAGroup() throws {
        // Three astronauts (OpenCV: three faces, 46-50 px).
        let faces = try FaceDetector.detect(in: Self.corpusImage("323016"), maxSide: 320, minRelativeSize: 0.1, on: .inTurn)
        #expect(faces.count == 3)
        #expect(faces.allSatisfy { (35...65).contains($0.width) })
    }

    @Test(arguments: ["87046", "227092", "124084"])  // a lizard, a vase, flowers
    func findsNoFaceWhereThereIsNone(name: String) throws {
        #expect(try FaceDetector.detect(in: Self.corpusImage(name), maxSide: 320, minRelativeSize: 0.1, on: .inTurn).isEmpty)
    }

    @Test func flatAndTinyImagesHaveNoFaces() throws {
        #expect(try FaceDetector.detect(in: Image(width: 300, height: 200, pixels: [UInt8](repeating: 128, count: 300 * 200 * 4)), on: .inTurn).isEmpty)
        #expect(try FaceDetector.detect(in: Image(width: 12, height: 9, pixels: [UInt8](repeating: 7, count: 12 * 9 * 4)), on: .inTurn).isEmpty)
    }

    /// Settings that would never end or overflow the integral image are clamped, not trusted.
    @Test func degenerateSearchSettingsAreClamped() throws {
        // Out of range, the settings act as their nearest allowed values (a factor at or below 1 would never end):
        // the portrait's one face, found as with those values.
        let portrait = try Self.corpusImage("260081")
        let degenerate = try FaceDetector.detect(in: portrait, maxSide: 1 << 40, scaleFactor: 0.5, minNeighbors: -3,
                                                 minRelativeSize: 0.3, on: .inTurn)
        let clamped = try FaceDetector.detect(in: portrait, maxSide: 2048, scaleFactor: 1.01, minNeighbors: -3,
                                              minRelativeSize: 0.3, on: .inTurn)
        #expect(degenerate == clamped, "\(degenerate) against \(clamped)")
        #expect(!clamped.isEmpty, "no face found with the clamped settings")
        var rng = SplitMix64(seed: 7)
        let pixels = (0..<(64 * 48 * 4)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let noise = Image(width: 64, height: 48, pixels: pixels)
        let tiny = try FaceDetector.detect(in: noise, maxSide: 0, scaleFactor: 1, on: .inTurn)
        #expect(tiny == (try FaceDetector.detect(in: noise, maxSide: 24, scaleFactor: 1.01, on: .inTurn)), "\(tiny)")
    }

    /// The scan itself checks (not only the pyramid loop around it), so a cancelled search stops
    /// inside its first level.
    @Test func scanChecksCancellationInsideALevel() async throws {
        let cascade = try #require(HaarCascade.frontalFace)
        let grey = [UInt8](repeating: 90, count: 200 * 150)
        let (sum, squares) = FaceDetector.integrals(grey, width: 200, height: 150)
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            return try cascade.scan(sum: sum, squares: squares, width: 200, height: 150, step: 2, on: .inTurn)
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled face scan to end") }
    }

    @Test func groupingKeepsCrowdedHitsAndDropsLoneOnes() {
        let face = (0..<7).map { PixelRect(x: 100 + $0 % 3, y: 50 + $0 % 2, width: 40 + $0 % 2, height: 40 + $0 % 2) }
        let lone = (0..<5).map { PixelRect(x: 300 + $0, y: 10, width: 30, height: 30) }
        // A smaller group inside the face, with fewer hits: the face's own eye found as a face.
        let inner = (0..<6).map { _ in PixelRect(x: 110, y: 60, width: 20, height: 20) }
        let groups = FaceDetector.group(face + lone + inner, minNeighbors: 5, eps: 0.2)
        #expect(groups == [PixelRect(x: 101, y: 50, width: 40, height: 40)])
    }

    @Test func personPriorCoversHeadAndBodyOnly() {
        // A 20-px face at (40, 20) in a 100 × 200 image, mapped at half size.
        let map = PersonPrior.map(faces: [PixelRect(x: 40, y: 20, width: 20, height: 20)], sourceWidth: 100, width: 50, height: 100)
        func at(_ x: Int, _ y: Int) -> Float { map[y * 50 + x] }
        #expect(at(25, 15) == 1)          // face centre
        #expect(at(25, 40) == 1)          // chest, two faces below the face
        #expect(at(25, 2) == 0)           // above the head
        #expect(at(5, 15) == 0)           // beside the head
        #expect(at(25, 70) == 0)          // beyond the body length
        #expect(at(25 + 12, 40) == 1 && at(25 + 15, 40) == 0)  // shoulder half-width 1.3 faces (13 px)
    }

    @Test func personPriorIsClippedToTheImage() {
        let faces = [PixelRect(x: -30, y: 180, width: 60, height: 60), PixelRect(x: 90, y: -10, width: 30, height: 30)]
        let map = PersonPrior.map(faces: faces, sourceWidth: 100, width: 100, height: 200)
        #expect(map.count == 100 * 200)
        #expect(map.contains(1))
    }

    @Test func raisedMapHasAFloorOnThePriorAndIsUnchangedElsewhere() throws {
        let (image, _) = StickerScenes.disc()
        let map = try SaliencyMap(LabImage(image, maxSide: 64, on: .inTurn), on: .inTurn)
        var prior = [Float](repeating: 0, count: map.values.count)
        for i in 0..<(prior.count / 2) { prior[i] = 1 }
        let raised = map.raised(by: prior, level: 1.3)
        let floor = min(1, 1.3 * map.threshold)
        #expect(raised.threshold == map.threshold)
        for i in prior.indices {
            if prior[i] > 0 {
                #expect(raised.values[i] == max(map.values[i], floor))
            } else {
                #expect(raised.values[i] == map.values[i])
            }
        }
        #expect(zip(raised.values, map.values).contains { $0 > $1 })  // the floor did lift something
    }

    /// A portrait cut by the frame: without faces the cut keeps the face and loses the body (the
    /// bench measured 0.26); the person prior brings the body back (0.79).
    @Test func portraitKeepsItsBodyWithFaces() async throws {
        let image = try Self.corpusImage("260081"), truth = try Self.corpusMask("260081")
        let with = try await StickerExtractor.segment(image, on: InlineStages())
        let without = try await StickerExtractor.segment(image, options: StickerOptions(detectsFaces: false), on: InlineStages())
        #expect(with.intersectionOverUnion(truth) > 0.7)
        #expect(without.intersectionOverUnion(truth) < 0.5)
        // The body at the bottom centre of the frame is subject.
        #expect(with.values[(image.height - 5) * image.width + image.width / 2] >= 128)
    }
}
