import Compute
import Imaging
import Inference
@testable import PhotoWorker
import Testing

/// A key frame's cut is the same mask whether its stages run at once (a clip up to twice 1080p) or in turn (a larger
/// clip, for memory): the schedule is chosen from the source's size, never the result.
@Suite(.timeLimit(.minutes(10)))
struct KeyFrameCutterTests {
    @Test("The stages run at once up to twice 1080p's pixels a frame, in turn above")
    func theScheduleFollowsTheSourceSize() {
        let pool = ComputePool(threads: 1)
        let memory = ActivationMemory()
        let cases = [(1920 * 1080, true), (2 * 1920 * 1080, true), (2 * 1920 * 1080 + 1, false), (3840 * 2160, false)]
        for (pixels, atOnce) in cases {
            let cutter = KeyFrameCutter(compute: ComputeJob(pool, lease: .unleased), memory: memory, sourcePixels: pixels)
            #expect(cutter.concurrentStages == atOnce, "\(pixels) pixels: at once \(cutter.concurrentStages)")
        }
    }

    @Test("A key frame of a 4K clip gets the mask a 1080p clip's would")
    func bothSchedulesCutTheSameMask() async throws {
        let pool = ComputePool(threads: 2)
        pool.start()
        defer { pool.stop() }
        let frame = SubjectNetworkTests.photo()
        let atOnce = KeyFrameCutter(compute: ComputeJob(pool, lease: .unleased), memory: ActivationMemory(), sourcePixels: 1920 * 1080)
        let inTurn = KeyFrameCutter(compute: ComputeJob(pool, lease: .unleased), memory: ActivationMemory(), sourcePixels: 3840 * 2160)
        let (a, usedA) = try await atOnce.mask(frame, prompt: nil)
        let (b, usedB) = try await inTurn.mask(frame, prompt: nil)
        #expect(usedA == .network && usedB == .network, "\(usedA), \(usedB)")
        let differing = zip(a.values, b.values).filter { $0 != $1 }.count
        #expect(a.width == b.width && a.height == b.height && differing == 0, "mask values that differ: \(differing)")
        let covered = a.values.filter { $0 >= 128 }.count
        #expect(covered > a.values.count / 10 && covered < a.values.count / 2, "the disc, not a fallback: \(covered)")
    }
}
