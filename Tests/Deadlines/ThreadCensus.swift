import Foundation

/// The threads of this process, from `/proc/self/task` (Linux): how many, and their names (`comm`, at most 15
/// bytes), for tests that check that what started threads ended them.
package enum ThreadCensus {
    /// The names of this process's threads now.
    package static func names() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { comm(at: "/proc/self/task/\($0)/comm") }
    }

    private static func comm(at path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The calling thread's name as the kernel has it (what ``names()`` reads for every thread).
    package static func currentName() -> String {
        comm(at: "/proc/thread-self/comm") ?? "?"
    }

    /// The threads whose names start with `prefix`.
    package static func named(_ prefix: String) -> [String] { names().filter { $0.hasPrefix(prefix) } }

    /// How many threads the process has now.
    package static var count: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0 }
}
