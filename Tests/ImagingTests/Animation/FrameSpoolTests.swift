import Testing
@testable import Imaging

@Suite("Frame spool", .timeLimit(.minutes(10)))
struct FrameSpoolTests {
    func spool(_ durations: [Double]) throws -> FrameSpool {
        var spool = FrameSpool(width: 64, height: 48)
        for (i, d) in durations.enumerated() { try spool.append(movingSquareFrame(i), duration: d, on: .inTurn) }
        return spool
    }

    @Test("Replayed as stored: the same frames and durations, the last cut at the length")
    func asStored() throws {
        let spool = try spool([0.1, 0.05, 0.2, 0.1])
        #expect(abs(spool.duration - 0.45) < 1e-9 && spool.count == 4)
        var seen: [(Image, Double)] = []
        try spool.replay(fps: nil, length: 0.3, on: .inTurn) { seen.append(($0, $1)) }
        #expect(seen.count == 3)
        #expect(seen.map(\.1).map { ($0 * 1000).rounded() } == [100, 50, 150], "\(seen.map(\.1))")
        for (i, frame) in seen.enumerated() { #expect(frame.0 == movingSquareFrame(i), "frame \(i)") }
        #expect(spool.replayCount(fps: nil, length: 0.3) == 3)
    }

    @Test("Replayed at a frame rate: the frame shown at each tick, each for 1/fps")
    func resampled() throws {
        let spool = try spool([0.1, 0.05, 0.2, 0.1])  // starts 0, 0.1, 0.15, 0.35
        var seen: [(Image, Double)] = []
        try spool.replay(fps: 20, length: 10, on: .inTurn) { seen.append(($0, $1)) }
        #expect(seen.count == 9 && spool.replayCount(fps: 20, length: 10) == 9)
        let expected = [0, 0, 1, 2, 2, 2, 2, 3, 3]  // ticks at 0, 0.05, ... 0.40
        for (k, i) in expected.enumerated() {
            #expect(seen[k].0 == movingSquareFrame(i), "tick \(k) should show frame \(i)")
            #expect(abs(seen[k].1 - 0.05) < 1e-9)
        }
    }
}
