import Foundation
import Synchronization

/// A wait in a test that can end only two ways: the condition holds, or the deadline passes and the test fails
/// saying what it waited for (never a hang until the suite's time limit, or forever).
///
/// The condition is checked between `Task.yield()`s, then every millisecond: the tests that use it wait for another
/// task to reach a point (a queue, a park) that they cannot be told about, and a task on the same actor must get to
/// run. The polling decides nothing but how soon the wait notices; the deadline only how long a broken case waits,
/// which is why it is a minute by default: in a full parallel run on two cores every suite starts at once, and a hop
/// that takes a millisecond alone has taken more than ten seconds there (an in-process server's close).
package enum Deadline {
    /// How much slower than a normal debug build the code under test runs (`PHOTOWORKER_TEST_TIME_SCALE`, as
    /// PhotoWorkerTestSupport's `TestTiming` reads it for the sanitizer runs).
    package static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["PHOTOWORKER_TEST_TIME_SCALE"],
              let value = Int(text), value >= 1 else { return 1 }
        return min(value, 20)
    }()

    /// The wait ran out: what it waited for.
    package struct Passed: Error, CustomStringConvertible {
        package let description: String
    }

    /// Returns once `condition` holds; throws ``Passed`` (which fails the test, saying what it waited for) when
    /// `limit` passes first.
    ///
    /// Time in which the wait itself was not run moves the deadline on by as much, up to ``stallAllowance`` in all:
    /// a pause between two checks that came back more than ``stall`` late (the cooperative threads busy elsewhere).
    /// What is awaited usually needs those same threads, so a deadline that passed while nobody ran would fail a
    /// case that was never given its time: the first check after such a stall can run before the task it waits for.
    /// Only the pauses count, never the checks: a condition that is slow because the code under test is slow gets
    /// no more time.
    /// - Parameter what: what the test waits for, as the failure states it ("a waiter in the queue").
    package static func until(_ what: @autoclosure () -> String, within limit: Duration = .seconds(60),
                              _ condition: () async throws -> Bool) async throws {
        try await until(what(), within: limit, allowing: stallAllowance, pausing: { check in
            // Yields first (what is awaited is usually a hop away); then a millisecond between checks, so a long
            // wait does not hold one of the few cooperative threads that every other test shares.
            if check < 100 { await Task.yield() } else { try await Task.sleep(for: .milliseconds(1)) }
        }, condition)
    }

    /// ``until(_:within:_:)`` with its pause between checks (handed the number of checks so far) and its allowance
    /// for stalls given: `DeadlineTests` stands a slow pause in for a stalled pool.
    package static func until(_ what: @autoclosure () -> String, within limit: Duration, allowing allowance: Duration,
                              pausing pause: (Int) async throws -> Void,
                              _ condition: () async throws -> Bool) async throws {
        var deadline = ContinuousClock.now + limit * scale
        var stalled = Duration.zero
        var checks = 0
        while try await !condition() {
            if ContinuousClock.now >= deadline {
                let starved = stalled > .zero ? " (and \(stalled) more while the wait itself was not run)" : ""
                throw Passed(description: "waited \(limit * scale)\(starved) for \(what())")
            }
            checks += 1
            let paused = ContinuousClock.now
            try await pause(checks)
            let late = ContinuousClock.now - paused
            if late > stall && stalled < allowance {
                let moved = min(late, allowance - stalled)
                stalled += moved
                deadline += moved
            }
        }
    }

    /// A pause between two checks longer than this is time the wait was not run (a yield or a millisecond's sleep
    /// comes back at once when it is).
    package static let stall: Duration = .milliseconds(500)

    /// The most a wait's deadline moves on for stalls: two minutes, so that a task's wait (``taskLimit``, five) still
    /// fails, saying what it waited for, inside a suite's ten-minute limit.
    package static let stallAllowance: Duration = .seconds(120)

    /// How long a task's whole value is waited for by default: five minutes, not ``until(_:within:_:)``'s one. What
    /// is awaited is a computation (a sticker cut, a server's round trip), and in a full parallel run on two cores a
    /// task that ends in a second alone waited over a minute for a cooperative thread (four such waits failed at a
    /// minute in one run of the whole suite); five minutes, and ``stallAllowance`` on top, still fail inside a suite's
    /// ten-minute limit.
    package static let taskLimit: Duration = .seconds(300)

    /// The value of `task` once it ends; throws ``Passed`` when `limit` passes first (the task goes on).
    package static func value<T: Sendable>(of task: Task<T, Never>, _ what: @autoclosure () -> String,
                                           within limit: Duration = taskLimit) async throws -> T {
        let result = Mutex<T?>(nil)
        Task { let value = await task.value; result.withLock { $0 = value } }
        try await until(what(), within: limit) { result.withLock { $0 != nil } }
        return result.withLock { $0! }
    }

    /// The value of a throwing `task` once it ends, or the error it threw; throws ``Passed`` when `limit` passes
    /// first (the task goes on). Inside `#expect(throws: E.self) { ... }` a task that hangs fails as "expected E,
    /// got Passed(waited ... for `what`)".
    package static func value<T: Sendable>(of task: Task<T, any Error>, _ what: @autoclosure () -> String,
                                           within limit: Duration = taskLimit) async throws -> T {
        let ended = Task { () -> Result<T, any Error> in
            do { return .success(try await task.value) } catch { return .failure(error) }
        }
        return try await value(of: ended, what(), within: limit).get()
    }

    /// The value `body` returns (or the error it throws), run in a task of its own; throws ``Passed`` when `limit`
    /// passes first (the task goes on): an await that has no deadline of its own, such as an in-process
    /// connection's `call`, put under one.
    package static func run<T: Sendable>(_ what: @autoclosure () -> String, within limit: Duration = taskLimit,
                                         _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await value(of: Task { try await body() }, what(), within: limit)
    }

    /// The elements of `stream` up to and including the first after which `isLast` holds (given all of them so far);
    /// throws ``Passed`` when `limit` passes first, and then stops reading, so the stream can be read again.
    package static func collect<Element: Sendable>(from stream: AsyncStream<Element>, _ what: @autoclosure () -> String,
                                                   within limit: Duration = .seconds(60),
                                                   until isLast: @escaping @Sendable ([Element]) -> Bool) async throws -> [Element] {
        let reading = Task {
            var seen: [Element] = []
            for await element in stream {
                seen.append(element)
                if isLast(seen) { break }
            }
            return seen
        }
        do {
            return try await value(of: reading, what(), within: limit)
        } catch {
            reading.cancel()
            throw error
        }
    }

    /// The first element of `stream` that `matches` (the others are read and dropped), or nil if the stream ends
    /// first; throws ``Passed`` when `limit` passes first.
    package static func first<Element: Sendable>(in stream: AsyncStream<Element>, _ what: @autoclosure () -> String,
                                                 within limit: Duration = .seconds(60),
                                                 where matches: @escaping @Sendable (Element) -> Bool) async throws -> Element? {
        try await collect(from: stream, what(), within: limit) { $0.last.map(matches) ?? false }.last.flatMap { matches($0) ? $0 : nil }
    }
}
