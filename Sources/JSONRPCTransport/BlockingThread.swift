import CSyscalls
import Foundation

/// The one way this package starts a raw thread: for a blocking system call (`read(2)` on the input,
/// `write(2)` on the output, libcurl's `poll(2)`), which must never sit on a cooperative-pool thread.
///
/// Pixel work has its own threads (Imaging's `ComputePool`); everything else is `async`.
public enum BlockingThread {
    /// Starts `body` on a new detached thread named `name` (shown by `top -H` and debuggers).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            // Named by the thread itself: Foundation's `Thread.name` setter names the thread only once `start()`
            // has stored its handle, which the new thread can outrun on a loaded machine (it then kept the
            // process's name).
            _ = cs_name_this_thread(name)
            body()
        }
        thread.start()
    }
}
