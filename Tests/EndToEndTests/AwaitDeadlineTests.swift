import Foundation
import PhotoWorkerTestSupport
import Testing

/// Every await in a test that could hang has a deadline (issue 66, item 7): a task's `value` and an in-process
/// connection's `call` wait for as long as what they wait for takes, so a hang there stopped the run at the suite's
/// time limit without saying what it waited for. Each goes through `Deadline` (`Deadline.value(of:_:within:)`,
/// `Deadline.run(_:within:_:)`, or `InProcessConnection.reply` in PhotoWorkerTests), which fails naming it.
///
/// A text scan, as ``TestTimeLimitTests`` is: an await counts as under a deadline when its line says `Deadline.` or
/// it sits inside a `{ ... }` block opened on a line that does (`Deadline.run("...") {` over several lines). Strings
/// and comments are left out. The spawned worker's `call` (EndToEndTests, PhotoWorkerTestSupport's `WorkerProcess`)
/// reads with its own timeout, so `.call(` is looked for only where an in-process connection is used.
@Suite(.timeLimit(.minutes(10)))
struct AwaitDeadlineTests {
    /// An await left without a deadline on purpose: the file (under Tests/), the line's text (trimmed) and why.
    struct Allowed: Sendable {
        let file: String
        let line: String
        let reason: String
    }

    static let allowed: [Allowed] = [
        Allowed(file: "PhotoWorkerTests/Access/SessionPolicyTests.swift",
                line: "Task { _ = await cancelled.value; ended.set() }",
                reason: "a watcher task, not a wait: the `Deadline.until` on the next line waits for what it sets"),
        Allowed(file: "EndToEndTests/FaultSoakTests.swift",
                line: "_ = try? await reader.value",
                reason: "the reader's every read is `w.next(timeout:)`, so it ends within a minute of the worker's exit, which the line before waited for under its own deadline"),
    ]

    /// Whether `file` (relative to Tests/) may use an in-process connection's `call`, which has no deadline of its own.
    static func usesInProcessCalls(_ file: String, text: String) -> Bool {
        !(file.hasPrefix("EndToEndTests/") || file.hasPrefix("PhotoWorkerTestSupport/")) || text.contains("InProcessConnection")
    }

    /// `line` without its string literals' contents and its `//` comment.
    static func code(of line: String) -> String {
        var code = line.replacing(/#"(.*?)"#/, with: "\"\"")
        code = code.replacing(/"(?:\\.|[^"\\])*"/, with: "\"\"")
        if let comment = code.firstRange(of: "//") { code = String(code[..<comment.lowerBound]) }
        return code
    }

    /// The awaits in `text` without a deadline: a task's `value`, and (with `inProcessCalls`) a `.call(`, as
    /// (1-based line, trimmed text).
    static func unbounded(in text: String, inProcessCalls: Bool) -> [(line: Int, text: String)] {
        let taskValue = /\bawait\s+[\w.]*\.value\b(?!\s*\()/
        // `await Task { ... }.value` over several lines: the wait is on the line that closes the task's body.
        let closingTaskValue = /^\s*\}\s*\.(?:value|result)\b(?!\s*\()/
        var found: [(line: Int, text: String)] = []
        var blocks: [Bool] = []  // per open `{`: whether its line says `Deadline.`
        var inMultilineString = false
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            let quotes = line.ranges(of: "\"\"\"").count
            if inMultilineString || quotes > 0 {
                if quotes % 2 == 1 { inMultilineString.toggle() }
                continue
            }
            let code = Self.code(of: line)
            let saysDeadline = code.contains("Deadline.")
            let covered = saysDeadline || blocks.contains(true)
            let waits = code.firstMatch(of: taskValue) != nil || code.firstMatch(of: closingTaskValue) != nil
                || (inProcessCalls && code.contains(".call("))
            if waits && !covered { found.append((i + 1, line.trimmingCharacters(in: .whitespaces))) }
            for c in code {
                if c == "{" { blocks.append(saysDeadline) } else if c == "}", !blocks.isEmpty { blocks.removeLast() }
            }
        }
        return found
    }

    @Test("Every task value and in-process call in the tests is awaited under a deadline")
    func everyAwaitHasADeadline() throws {
        let tests = Corpus.packageRoot.appendingPathComponent("Tests")
        let files = SwiftFiles.under(tests).filter { !$0.hasPrefix("Deadlines/") }
        var unbounded: [String] = []
        var allowedSeen = Set<Int>()
        for file in files {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            for (line, code) in Self.unbounded(in: text, inProcessCalls: Self.usesInProcessCalls(file, text: text)) {
                if let k = Self.allowed.firstIndex(where: { $0.file == file && $0.line == code }) {
                    allowedSeen.insert(k)
                } else {
                    unbounded.append("\(file):\(line): \(code)")
                }
            }
        }
        #expect(files.count > 100, "test files read: \(files.count)")
        #expect(unbounded.isEmpty, "awaits without a deadline (put them under Deadline, or allow one with its reason): \(unbounded)")
        let stale = Self.allowed.indices.filter { !allowedSeen.contains($0) }.map { "\(Self.allowed[$0].file): \(Self.allowed[$0].line)" }
        #expect(stale.isEmpty, "allowed awaits no longer found (take them off the list): \(stale)")
    }

    @Test("The check finds a task value and an in-process call without a deadline, and accepts them under one")
    func theCheckCanFail() {
        let without = "@Test func f() async throws {\n    let t = Task { 1 }\n    #expect(await t.value == 1)\n    _ = try await w.call(\"ping\")\n    await #expect(throws: CancellationError.self) { try await self.task.value }\n    let n = await Task {\n        1\n    }.value\n}\n"
        let found = Self.unbounded(in: without, inProcessCalls: true).map(\.line)
        #expect(found == [3, 4, 5, 8], "\(found)")
        let spawned = Self.unbounded(in: without, inProcessCalls: false).map(\.line)
        #expect(spawned == [3, 5, 8], "a spawned worker's call has its own timeout: \(spawned)")
        let with = "@Test func f() async throws {\n    #expect(try await Deadline.value(of: t, \"t\") == 1)\n    let r = try await Deadline.run(\"the reply\") {\n        var n = 0\n        return try await w.call(\"ping\") { _ in n += 1 }\n    }\n    let s = \"await t.value\"  // await t.value\n    _ = try await Deadline.value(of: Task { await w.close() }, \"close\")\n}\n"
        let accepted = Self.unbounded(in: with, inProcessCalls: true)
        #expect(accepted.isEmpty, "\(accepted)")
    }
}
