import Synchronization
import UnixSignals

import Glibc

/// SIGTERM and SIGINT from the executable's first line until ``SignalService`` takes them over.
///
/// The signal service installs its handlers (a dispatch signal source each) a moment after ``Server/run()`` starts.
/// Before that, a SIGTERM had its default action and ended the process at once, with nothing answered and status
/// "killed". The executable calls ``catchFromNow()`` first, on the main thread before any other thread exists: from
/// then on the first SIGTERM or SIGINT is kept here, and the signal service, once its own handlers are in place,
/// takes it (``take()``) and shuts down as for any later signal (in flight answered -32802, exit 0).
///
/// What this cannot cover: a signal that comes before the process runs any code of its own (while the dynamic loader
/// maps its libraries) still ends it by the default action. A spawner that must not lose one starts the worker with
/// SIGTERM and SIGINT blocked: a blocked signal stays pending through `exec`, and ``catchFromNow()`` unblocks them
/// once its handler is in place, so the pending one arrives here.
public enum EarlySignals {
    /// The first signal caught (its number), 0 while none has been.
    private static let caught = Atomic<Int32>(0)

    /// Catches SIGTERM and SIGINT from now on and unblocks them on the calling thread (the executable's main thread,
    /// before it starts any other; threads started later inherit its mask).
    ///
    /// Only for a process whose server handles signals (``ServerConfiguration/handleSignals``): until the signal
    /// service takes them, nothing else acts on a caught one (``release()`` gives them back to the default action).
    public static func catchFromNow() {
        // The handler only stores into an atomic (async-signal-safe); the global is initialised here, before a
        // handler can touch it.
        _ = caught.load(ordering: .relaxed)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            _ = EarlySignals.caught.compareExchange(expected: 0, desired: signal, ordering: .relaxed)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        var both = sigset_t()
        sigemptyset(&both)
        for signal in [SIGTERM, SIGINT] {
            sigaction(signal, &action, nil)
            sigaddset(&both, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &both, nil)
    }

    /// The executable will not serve after all (another command ran): SIGTERM and SIGINT get their default action
    /// back, and one caught meanwhile is raised again, so it ends the process as it would have.
    public static func release() {
        for signal in [SIGTERM, SIGINT] { Glibc.signal(signal, SIG_DFL) }
        let signal = caught.exchange(0, ordering: .relaxed)
        if signal != 0 { raise(signal) }
    }

    /// The signal caught before the signal service took over, once (nil when none came). The service calls it after
    /// its own handlers are in place, so a signal comes either here or through them, never neither.
    static func take() -> UnixSignal? {
        switch caught.exchange(0, ordering: .relaxed) {
        case SIGTERM: return .sigterm
        case SIGINT: return .sigint
        default: return nil
        }
    }
}
