import Foundation

/// The threads of this process, from `/proc/self/task` (Linux): how many, and their names (`comm`, at most 15
/// bytes), for tests that check that what started threads ended them.
package enum ThreadCensus {
    /// The names of this process's threads now.
    package static func names() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// The threads whose names start with `prefix`.
    package static func named(_ prefix: String) -> [String] { names().filter { $0.hasPrefix(prefix) } }

    /// How many threads the process has now.
    package static var count: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0 }
}
