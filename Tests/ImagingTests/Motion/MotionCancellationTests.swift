import Deadlines
import Testing
@testable import Imaging

@Suite("Motion decoding: cancellation and the libraries' messages", .timeLimit(.minutes(10)))
struct MotionCancellationTests {
    @Test("a cancelled task's next frame is refused with CancellationError, for every kind",
          arguments: ["cutout.gif", "cutout.webp", "cutout.webm", "pan.mp4"])
    func cancelled(_ name: String) async throws {
        let bytes = try MotionCorpus.bytes(name)
        let outcome = try await Deadline.value(of: Task { () -> String in
            do {
                let decoder = try MotionDecoder(bytes: bytes, on: .inTurn)
                _ = try decoder.next(on: .inTurn)
                withUnsafeCurrentTask { $0?.cancel() }
                _ = try decoder.next(on: .inTurn)
                return "decoded a frame after cancellation"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "\(error)"
            }
        }, "the decoding of \(name) in a task cancelled after one frame")
        #expect(outcome == "cancelled", "\(name): \(outcome)")
    }

    @Test("FFmpeg's messages come back as the decoder's warnings (never printed)")
    func warnings() throws {
        let decoder = try MotionDecoder(bytes: MotionCorpus.bytes("hostile/truncated.webm"), on: .inTurn)
        while try decoder.next(on: .inTurn) != nil {}
        #expect(!decoder.warnings.isEmpty, "no warning for a truncated WebM")
        let clean = try MotionDecoder(bytes: MotionCorpus.bytes("cutout.webm"), on: .inTurn)
        while try clean.next(on: .inTurn) != nil {}
        #expect(clean.warnings.isEmpty, "\(clean.warnings)")
    }
}
