import CCodecs
import Compute

/// The C codecs' cancellation poll (`cc_cancel_check`) for the loop a decode runs on: the shims call
/// `poll(context)` between bands, and the context is this box, so the loop's own ``ParallelLoop/isCancelled`` answers
/// (no thread-local, no global).
final class CodecCancellation {
    private let loop: any ParallelLoop

    init(_ loop: some ParallelLoop) { self.loop = loop }

    /// The poll, valid while this box lives: whoever hands it to a shim that keeps it (a JPEG handle's
    /// `cc_jpeg_set_cancel_check`) keeps the box alive until the handle is gone.
    var check: cc_cancel_check {
        cc_cancel_check(poll: { context in
            Unmanaged<CodecCancellation>.fromOpaque(context!).takeUnretainedValue().loop.isCancelled ? 1 : 0
        }, context: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Runs `body` with a poll that answers from `loop`, valid until `body` returns.
    static func polling<R>(_ loop: some ParallelLoop, _ body: (cc_cancel_check) throws -> R) rethrows -> R {
        let box = CodecCancellation(loop)
        return try withExtendedLifetime(box) { try body(box.check) }
    }
}
