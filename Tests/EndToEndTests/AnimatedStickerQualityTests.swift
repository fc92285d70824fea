import Foundation
import Imaging
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// The animated sticker against the still sticker of its frames (issue 64): a clip that does not move is the still
/// sticker in every frame; a clip with a known camera motion keeps the cut between its key frames; the canvas is the
/// subject's box over the clip.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct AnimatedStickerQualityTests {
    static func motion(_ name: String) -> String { Corpus.path("motion/\(name)") }

    /// The first channel of every frame of a mask file, as a mask.
    static func masks(_ path: String) throws -> [Mask] {
        try AnimatedStickerTests.frames(path).map { frame in
            Mask(width: frame.image.width, height: frame.image.height,
                 values: stride(from: 0, to: frame.image.pixels.count, by: 4).map { frame.image.pixels[$0] })
        }
    }

    @Test func aClipThatDoesNotMoveIsTheStillStickerInEveryFrame() async throws {
        let w = try WorkerProcess()
        let dir = try TempFolder("animated-still")
        defer { dir.remove() }
        // corpus/motion/still.gif: six identical lossless frames. The still sticker of its first frame, as decoded.
        let frame = try #require(try AnimatedStickerTests.frames(Self.motion("still.gif")).first).image
        let framePath = "\(dir.path)/frame.png"
        try Data(try ImageCodec.encodePNG(frame, on: .inTurn)).write(to: URL(fileURLWithPath: framePath))
        let still = try await w.call(1, "image.sticker", [
            "source": ["path": .string(framePath)], "output": ["path": .string("\(dir.path)/still.png")],
            "maskOutput": ["path": .string("\(dir.path)/still-mask.png")],
        ])
        #expect(still["result"] != nil, "\(still)")
        let stillMask = try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir.path)/still-mask.png"))), on: .inTurn).image
        let stillSticker = try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir.path)/still.png"))), on: .inTurn).image
        // Cut at the clip's own size, so the frames are the still's pixels. Lossless APNG keeps the first frame's mask
        // and pixels exact (an APNG's default image is its first frame); a WebP of the masks has every frame.
        let r = try await w.call(2, "image.animatedSticker", [
            "source": ["path": .string(Self.motion("still.gif"))], "size": 192,
            "output": ["path": .string("\(dir.path)/a.png")], "maskOutput": ["path": .string("\(dir.path)/a-mask.png")],
        ])
        let result = try #require(r["result"], "\(r)")
        #expect(result["frames"]?.intValue == 6, "\(result)")
        let stillValues = stride(from: 0, to: stillMask.pixels.count, by: 4).map { stillMask.pixels[$0] }
        let firstMask = try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir.path)/a-mask.png"))), on: .inTurn).image
        let differing = zip(stride(from: 0, to: firstMask.pixels.count, by: 4).map { firstMask.pixels[$0] }, stillValues)
            .filter { $0 != $1 }.count
        #expect(firstMask.pixelCount == stillMask.pixelCount && differing == 0,
                "\(differing) of \(stillValues.count) mask values differ from the still's")
        let r2 = try await w.call(3, "image.animatedSticker", [
            "source": ["path": .string(Self.motion("still.gif"))], "size": 192,
            "output": ["path": .string("\(dir.path)/b.webp")],
            "maskOutput": ["path": .string("\(dir.path)/b-mask.webp"), "format": "webp"],
        ])
        #expect(r2["result"]?["frames"]?.intValue == 6, "\(r2)")
        let masks = try Self.masks("\(dir.path)/b-mask.webp")
        // The WebP encoder merges equal frames: what it kept stands for all six.
        #expect((1...6).contains(masks.count), "\(masks.count) mask frames")
        for (k, mask) in masks.enumerated() {
            // Lossy WebP moves values a little: sides of 128 compared, away from the values near it.
            let flipped = zip(mask.values, stillValues).filter { abs(Int($1) - 128) > 24 && ($0 >= 128) != ($1 >= 128) }.count
            #expect(flipped == 0, "frame \(k): \(flipped) pixels on the other side of the still's edge")
        }
        // Cropped to the subject as the still is: the same canvas and the same pixels (the edge's colour estimated).
        let first = try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir.path)/a.png"))), on: .inTurn).image
        #expect(first.width == stillSticker.width && first.height == stillSticker.height,
                "animated \(first.width)x\(first.height), still \(stillSticker.width)x\(stillSticker.height)")
        if first.width == stillSticker.width && first.height == stillSticker.height {
            let off = zip(first.pixels, stillSticker.pixels).filter { abs(Int($0) - Int($1)) > 1 }.count
            #expect(off == 0, "\(off) of \(first.pixels.count) bytes differ by more than 1 from the still sticker's")
        }
        try await w.expectServing()
    }

    @Test func aPushInIsFollowedBetweenKeyFramesAsTheSubjectGrows() async throws {
        let w = try WorkerProcess()
        let dir = try TempFolder("animated-pushin")
        defer { dir.remove() }
        // corpus/motion/pushin.mp4: a photo pushed into from 1.0x to 1.33x over 12 frames; pushin-masks/NN.png its true
        // masks. Only the first and last frames are key frames: the ten between have only the motion to go by, and the
        // subject grows by a third over them (one translation per frame cannot carry that).
        let r = try await w.call(1, "image.animatedSticker", [
            "source": ["path": .string(Self.motion("pushin.mp4"))], "size": 192, "keyFrameInterval": 10,
            "output": ["path": .string("\(dir.path)/a.webp")],
            "maskOutput": ["path": .string("\(dir.path)/m.webp"), "format": "webp"],
        ])
        #expect(r["result"]?["frames"]?.intValue == 12 && r["result"]?["keyFrames"]?.intValue == 2, "\(r)")
        let masks = try Self.masks("\(dir.path)/m.webp")
        #expect(masks.count == 12, "\(masks.count) mask frames")
        let ious = try masks.enumerated().map { k, mask in
            let truth = try ImageCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath:
                Self.motion("pushin-masks/" + (k < 10 ? "0\(k)" : "\(k)") + ".png")))), on: .inTurn).image
            return mask.intersectionOverUnion(Mask(width: truth.width, height: truth.height,
                                                   values: stride(from: 0, to: truth.pixels.count, by: 4).map { truth.pixels[$0] }))
        }
        // Between the key frames the cut is as good as at them: the masks grew with the subject.
        let keys = min(ious.first ?? 0, ious.last ?? 0)
        let between = ious.dropFirst().dropLast()
        #expect(ious.count == 12 && between.allSatisfy { $0 >= keys - 0.04 }, "IoU per frame \(ious)")
        // And precisely: frames 1-5, nearer the first key frame, are its mask moved by the camera's known push-in
        // (gen-motion-corpus.sh's zoompan: frame n shows the 960x640 photo from ((960 - 960/z)/2 + 6n, (640 - 640/z)/2)
        // at z = 1 + 0.03n, scaled to 192x128). The first key frame's mask as it stands gives 0.88 down to 0.55.
        for n in 1...5 where masks.count == 12 {
            let z = 1 + 0.03 * Double(n), x0 = (960 - 960 / z) / 2 + 6 * Double(n), y0 = (640 - 640 / z) / 2
            var expected = Mask(width: 192, height: 128, repeating: 0)
            for y in 0..<128 {
                for x in 0..<192 {
                    let sx: Double = (x0 + (Double(x) + 0.5) * 5 / z) / 5 - 0.5
                    let sy: Double = (y0 + (Double(y) + 0.5) * 5 / z) / 5 - 0.5
                    let qx = min(191, max(0, Int(sx.rounded()))), qy = min(127, max(0, Int(sy.rounded())))
                    expected.values[y * 192 + x] = masks[0].values[qy * 192 + qx]
                }
            }
            let iou = masks[n].intersectionOverUnion(expected)
            #expect(iou >= 0.9, "frame \(n): IoU \(iou) with the first key frame's mask pushed in")
        }
        try await w.expectServing()
    }
}
