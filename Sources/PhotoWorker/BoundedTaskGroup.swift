/// A TaskGroup that keeps at most `width` children running over `count` items.
enum BoundedTaskGroup {
    /// Runs `work(i)` for every `i` in `0..<count`, at most `width` at a time, and hands each
    /// `(i, outcome)` to `handle` the moment it finishes (completion order). New children are added
    /// as others finish, so a huge batch never holds more than `width` items in memory. When the
    /// task is cancelled the remaining children are cancelled and no new ones start.
    static func run<T: Sendable>(
        count: Int, width: Int,
        work: @escaping @Sendable (Int) async throws -> T,
        handle: (Int, Result<T, any Error>) async throws -> Void
    ) async throws {
        // Children never throw (they return their outcome); only `handle` can end the group early.
        try await withThrowingTaskGroup(of: (Int, Result<T, any Error>).self) { group in
            var next = 0
            func addNext() {
                guard next < count, !Task.isCancelled else { return }
                let index = next
                next += 1
                group.addTask {
                    do { return (index, .success(try await work(index))) } catch { return (index, .failure(error)) }
                }
            }
            for _ in 0..<max(1, width) { addNext() }
            do {
                for try await (index, outcome) in group {
                    try await handle(index, outcome)
                    addNext()
                }
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }
}
