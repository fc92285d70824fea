import Foundation
import JSONRPCTransport
import Synchronization
import Testing

import Glibc

/// Thrown when an expected message does not arrive in time (a failure guard, not a sleep).
package struct TimedOut: Error, CustomStringConvertible {
    package var what: String
    package var description: String { "timed out waiting for \(what)" }
    package init(what: String) { self.what = what }
}

/// The built `photoworker` binary, spawned over real pipes, with a small client around it.
package final class WorkerProcess: Sendable {
    package let process: Process
    private let stdinHandle: FileHandle
    private let inbox = Inbox()
    private let stderrBuffer = ByteBox()
    package let stdoutReadFD: Int32
    /// How this client frames what it sends and reads (the worker detects it and answers in kind).
    package let framing: MessageFraming

    /// The directory holding the built products (next to the test bundle).
    package static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// The worker the tests spawn: `PHOTOWORKER_TEST_BINARY` when set (scripts/test-sanitizers.sh points it at
    /// a sanitized build of the worker alone), else the one built beside the tests.
    package static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["PHOTOWORKER_TEST_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let candidate = productsDirectory.appendingPathComponent("photoworker")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        // Fallback: the package's default debug build folder.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/photoworker")
    }

    /// The sanitizer the spawned worker was built with (`PHOTOWORKER_TEST_SANITIZER`, set by
    /// scripts/test-sanitizers.sh: `thread` or `address`), nil for the plain build. A sanitizer brings its own
    /// allocator, so what a test observes of glibc's malloc in the worker holds only without one.
    package static var sanitizer: String? {
        ProcessInfo.processInfo.environment["PHOTOWORKER_TEST_SANITIZER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// - Parameters:
    ///   - executable: another copy of the worker to run (default: the one built with the tests).
    ///   - diagnostics: serve with `--diagnostics` (the scheduler probes most tests drive).
    package init(_ arguments: [String] = [], environment: [String: String]? = nil,
         framing: MessageFraming = .ndjson, currentDirectory: String? = nil, executable: URL? = nil,
         diagnostics: Bool = true) throws {
        self.framing = framing
        process = Process()
        process.executableURL = executable ?? Self.binary
        process.arguments = (diagnostics ? ["--diagnostics"] : []) + arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let stdinPipe = Pipe(), stdoutPipe = Pipe(), stderrPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        try process.run()
        stdinHandle = stdinPipe.fileHandleForWriting
        stdoutReadFD = stdoutPipe.fileHandleForReading.fileDescriptor
        let inbox = inbox
        let fd = stdoutReadFD
        Thread.detachNewThread {
            var pending: [UInt8] = []
            var headers = ContentLengthFramer(maxMessageBytes: 1 << 30)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                if framing == .contentLength {
                    buffer.withUnsafeBytes { raw in
                        headers.feed(UnsafeRawBufferPointer(rebasing: raw[0..<n])) { event in
                            switch event {
                            case .message(let body): inbox.push(.message(body))
                            default: inbox.push(.message(Array("worker wrote a bad frame: \(event)".utf8)))
                            }
                        }
                    }
                    continue
                }
                pending.append(contentsOf: buffer[0..<n])
                while let nl = pending.firstIndex(of: 0x0A) {
                    let line = Array(pending[..<nl])
                    pending.removeSubrange(...nl)
                    inbox.push(.message(line))
                }
            }
            if !pending.isEmpty { inbox.push(.message(pending)) }
            inbox.push(.eof)
        }
        let errFD = stderrPipe.fileHandleForReading.fileDescriptor
        let stderrBuffer = stderrBuffer
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 1 << 14)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(errFD, $0.baseAddress!, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                stderrBuffer.bytes.withLock { $0.append(contentsOf: buffer[0..<n]) }
            }
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    package var stderr: String { String(decoding: stderrBuffer.bytes.withLock { $0 }, as: UTF8.self) }

    // MARK: Sending

    /// Sends one message in this client's framing.
    package func send(raw line: String) {
        switch framing {
        case .ndjson: sendBytes(Array(line.utf8) + [0x0A])
        case .contentLength: sendBytes(Array("Content-Length: \(line.utf8.count)\r\n\r\n\(line)".utf8))
        }
    }

    package func sendBytes(_ bytes: [UInt8]) {
        try? stdinHandle.write(contentsOf: Data(bytes))
    }

    package func send(_ value: JSONValue) { send(raw: value.jsonString) }

    package func request(_ id: Int, _ method: String, _ params: JSONValue? = nil) {
        var o: [String: JSONValue] = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { o["params"] = params }
        send(.object(o))
    }

    package func notify(_ method: String, _ params: JSONValue? = nil) {
        var o: [String: JSONValue] = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { o["params"] = params }
        send(.object(o))
    }

    package func cancel(_ id: Int) { notify("$/cancelRequest", ["id": .int(id)]) }

    package func closeStdin() { try? stdinHandle.close() }

    // MARK: Receiving

    /// The default failure guard for a wait on the worker: how long a broken worker may keep a test waiting, not
    /// how long a working one should take. Generous because the suite runs its workers in parallel: on a 2-core
    /// machine three times slower than the usual one, tests that take 1.5 s alone took over 30 s in the full suite.
    package static let guardTime: Duration = .seconds(120)

    /// The next message written by the worker; nil at end of stream.
    package func next(timeout: Duration = guardTime) async throws -> JSONValue? {
        switch try await inbox.next(timeout: timeout) {
        case .eof: return nil
        case .message(let bytes):
            do { return try JSONParser.parse(bytes) } catch {
                Issue.record("worker wrote a line that is not JSON: \(String(decoding: bytes, as: UTF8.self))")
                return .string(String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    /// The next raw line, or Content-Length body (to check framing byte for byte).
    package func nextRawLine(timeout: Duration = guardTime) async throws -> String? {
        switch try await inbox.next(timeout: timeout) {
        case .eof: return nil
        case .message(let bytes): return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Reads until the final response for `id`, returning it and everything read before it.
    package func response(_ id: Int, timeout: Duration = guardTime) async throws -> (response: JSONValue, before: [JSONValue]) {
        var before: [JSONValue] = []
        while let m = try await next(timeout: timeout) {
            if m["id"] == .int(id) && m["method"] == nil { return (m, before) }
            before.append(m)
        }
        throw TimedOut(what: "response \(id) (stream ended; stderr: \(stderr))")
    }

    /// Sends a request and waits for its response.
    package func call(_ id: Int, _ method: String, _ params: JSONValue? = nil) async throws -> JSONValue {
        request(id, method, params)
        return try await response(id).response
    }

    /// Cancels request `id` with `jobs.cancel` (sent as request `ackID`), which answers whether the worker still had
    /// the job in flight, and reads until both that answer and the job's final reply are in.
    ///
    /// Tests that cancel real pixel work need the first: on a loaded 2-core machine the test's own task can be held
    /// up (the test process's cooperative threads busy with in-process suites) for longer than the whole job, so a
    /// cancel sent "mid-flight" may reach a worker that has already answered. Then nothing about cancellation was
    /// tested, and the test should try again rather than pass or fail.
    /// - Returns: whether the job was in flight, its final reply, and the other messages read after that reply (for
    /// the job, there must be none); those read before it (the job's progress and items) are passed over.
    package func cancelAcknowledged(_ id: Int, as ackID: Int)
        async throws -> (inFlight: Bool, reply: JSONValue, after: [JSONValue]) {
        request(ackID, "jobs.cancel", ["id": .int(id)])
        var ack: JSONValue?, reply: JSONValue?, after: [JSONValue] = []
        while ack == nil || reply == nil {
            guard let m = try await next() else { throw TimedOut(what: "jobs.cancel's answer and reply \(id) (stream ended)") }
            if m["method"] == nil && m["id"] == .int(ackID) { ack = m }
            else if m["method"] == nil && m["id"] == .int(id) { reply = m }
            else if reply != nil { after.append(m) }
        }
        let inFlight = try #require(ack?["result"]?["cancelled"]?.boolValue as Bool?, "jobs.cancel's result: \(String(describing: ack))")
        return (inFlight, reply!, after)
    }

    /// Runs `attempt` (which starts a job on a fresh worker and cancels it with ``cancelAcknowledged(_:as:)``) until
    /// its job was in flight when cancelled, at most `attempts` times; records an issue when it never was.
    /// - Parameter attempt: returns whether the job was in flight (its checks ran only then).
    package static func untilCancelledInFlight(attempts: Int = 3, _ attempt: () async throws -> Bool) async throws {
        for _ in 0..<attempts where try await attempt() { return }
        Issue.record("the job had ended before its cancel in each of \(attempts) attempts: cancellation was not tested")
    }

    /// Polls `jobs.list` (as request `id`) until `done` holds for the listed jobs. Bounded: a job
    /// that ends before it is seen fails the test with `TimedOut` instead of spinning for ever.
    package func waitForJobs(id: Int = 100, polls: Int = 2000, until done: ([JSONValue]) -> Bool) async throws {
        for _ in 0..<polls {
            if case .array(let jobs)? = try await call(id, "jobs.list")["result"]?["jobs"], done(jobs) { return }
        }
        throw TimedOut(what: "jobs.list to show the awaited jobs")
    }

    /// Waits for the process to end; returns its exit status.
    package func waitForExit(timeout: Duration = guardTime) async throws -> Int32 {
        let deadline = ContinuousClock.now + TestTiming.guarded(timeout)
        while process.isRunning {
            if ContinuousClock.now > deadline { throw TimedOut(what: "process exit") }
            try await Task.sleep(for: .milliseconds(5))
        }
        return process.terminationStatus
    }

    /// Reads everything until end of stream.
    package func drain(timeout: Duration = guardTime) async throws -> [JSONValue] {
        var out: [JSONValue] = []
        while let m = try await next(timeout: timeout) { out.append(m) }
        return out
    }
}

/// Lines from the worker's stdout, buffered; `next` waits for one with a time limit.
package final class Inbox: Sendable {
    package enum Event: Sendable { case message([UInt8]), eof }

    package init() {}

    private struct State {
        var buffered: [Event] = []
        var head = 0
        var waiter: (ticket: Int, continuation: CheckedContinuation<Event?, Never>)?
        var expired: Set<Int> = []
        var nextTicket = 0
    }

    private let state = Mutex(State())

    package func push(_ event: Event) {
        let waiter = state.withLock { s -> CheckedContinuation<Event?, Never>? in
            if case .eof = event { s.buffered.append(event) }  // end of stream stays visible to every later read
            if let w = s.waiter {
                s.waiter = nil
                return w.continuation
            }
            if case .message = event { s.buffered.append(event) }
            return nil
        }
        waiter?.resume(returning: event)
    }

    package func next(timeout: Duration) async throws -> Event {
        let ticket = state.withLock { s -> Int in
            s.nextTicket += 1
            return s.nextTicket
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: TestTiming.guarded(timeout))
            self?.expire(ticket)
        }
        defer { timer.cancel() }
        let event: Event? = await withCheckedContinuation { c in
            let ready = state.withLock { s -> Event?? in
                if s.head < s.buffered.count {
                    let e = s.buffered[s.head]
                    if case .message = e { s.head += 1 }
                    return .some(e)
                }
                if s.expired.remove(ticket) != nil { return .some(nil) }
                s.waiter = (ticket, c)
                return .none
            }
            if let ready { c.resume(returning: ready) }
        }
        guard let event else { throw TimedOut(what: "a message from the worker") }
        return event
    }

    private func expire(_ ticket: Int) {
        let w = state.withLock { s -> CheckedContinuation<Event?, Never>? in
            if let w = s.waiter, w.ticket == ticket {
                s.waiter = nil
                return w.continuation
            }
            s.expired.insert(ticket)
            return nil
        }
        w?.resume(returning: nil)
    }
}

/// Bytes shared between a reader thread and the test.
package final class ByteBox: Sendable {
    package let bytes = Mutex<[UInt8]>([])
    package init() {}
}

extension JSONValue {
    /// Element count of an array value; nil otherwise.
    package var arrayCount: Int? {
        if case .array(let a) = self { return a.count }
        return nil
    }
}
