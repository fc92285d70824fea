import Foundation
import PhotoWorkerTestSupport
import Testing

import Glibc

/// `photoworker call ... | true` and `photoworker demo | head -2`: a reader that goes away ends `call` and `demo`
/// quietly, as a process killed by SIGPIPE ends (a shell shows 141), whether the process was started with SIGPIPE
/// at its default or ignored (Python's launcher execs the worker with it ignored; `try!` on the write crashed then).
@Suite(.timeLimit(TestTiming.minutes(3)))
struct ClosedOutputTests {
    enum Disposition: String, CaseIterable, Sendable {
        case defaultAction = "--default-signal=PIPE"
        case ignored = "--ignore-signal=PIPE"
    }

    struct Ended {
        var reason: Process.TerminationReason
        var status: Int32
        var stderr: String
    }

    /// Runs the binary through coreutils' `env`, which sets SIGPIPE's disposition and execs it (same process), with
    /// stdout a pipe whose read end is closed before the child starts: its first write finds no reader.
    static func runWithClosedStdout(_ arguments: [String], _ disposition: Disposition) throws -> Ended {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        close(fds[0])
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [disposition.rawValue, WorkerProcess.binary.path] + arguments
        let err = Pipe()
        // Closed by the test once the child has it: a handle that closed it again on deallocation closed whatever
        // descriptor had the number by then (another test's pipe: Process.run crashed on EBADF in a full run).
        p.standardOutput = FileHandle(fileDescriptor: fds[1], closeOnDealloc: false)
        p.standardError = err
        try p.run()
        close(fds[1])
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return Ended(reason: p.terminationReason, status: p.terminationStatus, stderr: stderr)
    }

    @Test(arguments: Disposition.allCases)
    func callEndsQuietlyWhenStdoutIsClosed(_ disposition: Disposition) throws {
        let ended = try Self.runWithClosedStdout(
            ["call", "image.info", #"{"source":{"path":"\#(Corpus.photo("rocket.jpg"))"}}"#], disposition)
        #expect(ended.reason == .uncaughtSignal && ended.status == SIGPIPE, "\(ended.reason) \(ended.status): \(ended.stderr)")
        #expect(ended.stderr.isEmpty, "nothing but silence: \(ended.stderr)")
    }

    /// The demo stops its batch at the first line it cannot write and leaves no half-written file behind.
    @Test(arguments: Disposition.allCases)
    func demoStopsItsBatchQuietlyWhenStdoutIsClosed(_ disposition: Disposition) throws {
        let dir = try Corpus.scratch("demo-closed-\(disposition)")
        let ended = try Self.runWithClosedStdout(["demo", "--out", dir], disposition)
        #expect(ended.reason == .uncaughtSignal && ended.status == SIGPIPE, "\(ended.reason) \(ended.status): \(ended.stderr)")
        #expect(ended.stderr.isEmpty, "nothing but silence: \(ended.stderr)")
        let files = Corpus.files(in: dir)
        #expect(files.allSatisfy { $0.hasSuffix(".png") && !$0.hasPrefix(".") }, "only finished images: \(files)")
        #expect(!files.contains("pack-sheet.png"), "the batch was stopped before the sheet: \(files)")
    }
}
