import Dispatch

/// The main queue as a task executor: the server's service group runs on it, as the whole server ran on the main
/// actor before it had services. Without it the group's own tasks (starting each service, handing the shutdown from
/// one to the next) ran on the cooperative pool, whose few threads a busy process can hold for long: an in-process
/// server in a full test run took over a minute to stop. Unstructured tasks (the jobs) do not inherit it.
final class MainQueueExecutor: TaskExecutor {
    static let shared = MainQueueExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue.main.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
