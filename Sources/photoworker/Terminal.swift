import Glibc
import Synchronization

/// Output of the one-shot modes (`call`, `demo`), written straight to the descriptors line by line.
///
/// `print` is block-buffered when stdout is a pipe, so a script reading `call`'s output would see lines only
/// when the buffer fills; each line here is written the moment it exists. Writes never trap: a reader that has
/// gone away (`photoworker demo | head -2`) makes ``line(_:)`` return false, and the command ends quietly with
/// ``exitForClosedOutput()``, whatever SIGPIPE disposition the process inherited (Python's launcher execs the
/// worker with SIGPIPE ignored; a shell leaves it at its default).
enum Terminal {
    /// Set once stdout has refused a write, so later lines are not attempted.
    private static let stdoutClosed = Atomic<Bool>(false)

    /// Makes a closed stdout an `EPIPE` the command handles instead of a signal that kills it mid-job (which
    /// would leave the worker's temporary files behind). Call before the first write.
    static func prepare() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes `text` and a newline to stdout. Returns false when stdout is closed or the write failed.
    @discardableResult
    static func line(_ text: String) -> Bool {
        guard !stdoutClosed.load(ordering: .relaxed) else { return false }
        if write(STDOUT_FILENO, text + "\n") { return true }
        stdoutClosed.store(true, ordering: .relaxed)
        return false
    }

    /// Whether a write to stdout has failed (the reader went away).
    static var isOutputClosed: Bool { stdoutClosed.load(ordering: .relaxed) }

    /// Writes `text` and a newline to stderr; best effort (a closed stderr loses the line, never the job).
    static func error(_ text: String) {
        _ = write(STDERR_FILENO, text + "\n")
    }

    /// Writes `text` to stderr as it is (no newline): the progress bar's carriage-return updates.
    static func errorRaw(_ text: String) {
        _ = write(STDERR_FILENO, text)
    }

    /// Whether stderr is a terminal (progress as a bar redrawn in place) rather than a file or pipe (plain lines).
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Ends the process as one killed by SIGPIPE ends (a shell shows status 141), without a message: the
    /// conventional, quiet end of a producer whose reader has gone. Called once the job was cancelled and the
    /// in-process worker closed, so nothing is left half-written.
    static func exitForClosedOutput() -> Never {
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)
    }

    private static func write(_ fd: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }
}
