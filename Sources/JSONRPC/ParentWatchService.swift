import ServiceLifecycle
import Synchronization

import Glibc

/// The parent may die without closing our stdin (it was inherited by a grandchild, say): the watch notices the
/// re-parenting and terminates the server. A service: it checks twice a second on the server's timers (the main
/// queue, so a full compute pool cannot delay it) while the group runs, and cancels its pending timer when the
/// group shuts down, so nothing is left armed once the server has ended.
struct ParentWatchService: Service {
    let server: Server
    let timers: any TimerScheduler

    func run() async {
        let watch = Watch(parent: getppid(), server: server, timers: timers)
        watch.arm()
        try? await GracefulShutdownWait.untilShutdown()  // or the group's cancellation: the watch ends either way
        watch.end()
    }

    /// The chain of timers: each check arms the next, until the parent goes or the watch ends.
    private final class Watch: Sendable {
        private struct State {
            var timer: ScheduledTimer?
            var ended = false
        }

        private let parent: pid_t
        private let server: Server
        private let timers: any TimerScheduler
        private let state = Mutex(State())

        init(parent: pid_t, server: Server, timers: any TimerScheduler) {
            self.parent = parent
            self.server = server
            self.timers = timers
        }

        func arm() {
            let timer = timers.after(.milliseconds(500)) { [self] in check() }
            let late = state.withLock { s -> Bool in
                if s.ended { return true }
                s.timer = timer
                return false
            }
            if late { timer.cancel() }
        }

        private func check() {
            guard getppid() != parent else { return arm() }
            server.logger.info("the parent process went away; exiting")
            let server = server
            Task { @MainActor in server.terminate(reason: "the parent process exited", exitCode: 0) }
        }

        func end() {
            state.withLock { s in
                s.ended = true
                defer { s.timer = nil }
                return s.timer
            }?.cancel()
        }
    }
}
