import Glibc

/// A self-pipe: a thread blocked in `poll(2)` on its own descriptor polls this one beside it, and another thread
/// wakes it with ``signal()`` (the writer when there is something to write, an owner that stops it).
///
/// Both ends are this process's own and non-blocking (never the inherited descriptors): a signal when one is
/// already pending is dropped, and ``drain()`` never blocks. Closed when the last holder lets go.
final class WakeupPipe: Sendable {
    /// The end to poll for `POLLIN`.
    let readFD: Int32
    private let writeFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0, "cannot create a pipe: errno \(errno)")
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// Wakes the polling thread (now, or at its next poll).
    func signal() {
        var byte: UInt8 = 1
        while write(writeFD, &byte, 1) < 0 && errno == EINTR {}
    }

    /// Takes every pending signal, so the next poll sleeps until a new one.
    func drain() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while true {
            let n = withUnsafeMutableBytes(of: &buffer) { read(readFD, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
        }
    }

    /// What woke a ``wait(for:events:)``.
    enum Wake {
        /// `fd` has one of the events asked for, or an error or hang-up (its next read or write says which).
        case ready
        /// It is not usable any more (`POLLNVAL`: closed by its owner).
        case invalid
        /// ``signal()`` was called (the pipe is drained).
        case signalled
    }

    /// Blocks until `fd` has one of `events` (or an error or hang-up, always reported), or the pipe is signalled.
    /// With `events` 0 it sleeps until the peer of `fd` goes away or a signal comes.
    func wait(for fd: Int32, events: Int16) -> Wake {
        var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)]
        while true {
            let n = poll(&fds, 2, -1)
            if n < 0 && errno == EINTR { continue }
            if fds[1].revents != 0 {
                drain()
                return .signalled
            }
            if Int32(fds[0].revents) & POLLNVAL != 0 { return .invalid }
            if n > 0 && fds[0].revents != 0 { return .ready }
            if n < 0 { return .invalid }
        }
    }
}
