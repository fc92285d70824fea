import Foundation
import PhotoWorkerTestSupport
import Testing

import Glibc

/// `photoworker call ... | true` and `photoworker demo | head -2`: a reader that goes away ends `call` and `demo`
/// quietly, as a process killed by SIGPIPE ends (a shell shows 141), whether the process was started with SIGPIPE
/// at its default or ignored (Python's launcher execs the worker with it ignored; `try!` on the write crashed then).
@Suite(.timeLimit(TestTiming.minutes(10)))
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

    /// `photoworker demo | head -1`: the reader takes the first line and goes; the demo's next line finds no reader,
    /// it stops its batch and ends quietly, leaving no half-written file and no sheet.
    @Test(arguments: Disposition.allCases)
    func demoStopsItsBatchQuietlyWhenItsReaderGoes(_ disposition: Disposition) throws {
        let dir = try Corpus.scratch("demo-closed-\(disposition)")
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        // The read end is ours alone: a copy inherited by the child would keep the pipe open after we close it.
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [disposition.rawValue, WorkerProcess.binary.path, "demo", "--out", dir]
        let err = Pipe()
        p.standardOutput = FileHandle(fileDescriptor: fds[1], closeOnDealloc: false)
        p.standardError = err
        try p.run()
        close(fds[1])
        let reader = FileHandle(fileDescriptor: fds[0], closeOnDealloc: false)
        var first: [UInt8] = []
        while !first.contains(0x0A) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            first += chunk
        }
        close(fds[0])
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(String(decoding: first, as: UTF8.self).hasPrefix("photoworker demo: "), "\(String(decoding: first, as: UTF8.self))")
        #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGPIPE, "\(p.terminationReason) \(p.terminationStatus): \(stderr)")
        #expect(stderr.isEmpty, "nothing but silence: \(stderr)")
        let files = Corpus.files(in: dir)
        #expect(files.allSatisfy { $0.hasSuffix(".png") && !$0.hasPrefix(".") }, "only finished images: \(files)")
        #expect(!files.contains("pack-sheet.png"), "the batch was stopped before the sheet: \(files)")
    }

    /// With no reader from the start, the demo ends at its first line, before any work.
    @Test(arguments: Disposition.allCases)
    func demoWithoutAReaderDoesNoWork(_ disposition: Disposition) throws {
        let dir = try Corpus.scratch("demo-unread-\(disposition)")
        let ended = try Self.runWithClosedStdout(["demo", "--out", dir], disposition)
        #expect(ended.reason == .uncaughtSignal && ended.status == SIGPIPE, "\(ended.reason) \(ended.status): \(ended.stderr)")
        #expect(ended.stderr.isEmpty, "nothing but silence: \(ended.stderr)")
        #expect(Corpus.files(in: dir).isEmpty, "\(Corpus.files(in: dir))")
    }

    /// A script that goes away while `photoworker call` runs: the call notices its parent is gone, its job is
    /// answered -32802, and it exits instead of working on for nobody (before, it finished the whole batch).
    @Test func callEndsWhenItsParentGoes() throws {
        let dir = try Corpus.scratch()
        // Sixty photos, the first missing: its lines come at once and say the call is running; the rest takes many seconds.
        let sources = [#"{"path":"\#(dir)/missing.jpg"}"#] + Array(repeating: #"{"path":"\#(Corpus.photo("girl-1.jpg"))"}"#, count: 59)
        let params = #"{"sources":[\#(sources.joined(separator: ","))],"output":{"dir":"\#(dir)/out"},"segmenter":"classical"}"#
        // The shell starts the call in the background, waits for its first stderr line (so the call has taken its
        // parent's id), and exits: the call's parent is gone while its batch runs.
        let script = """
            fifo="$1/events"; mkfifo "$fifo"
            "$0" call photos.process "$2" 2>"$fifo" &
            read -r line < "$fifo"
            echo "$line" >&2
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script, WorkerProcess.binary.path, dir, params]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let first = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(first.hasPrefix("photos.process: "), "\(first)")
        // The call holds the stdout pipe until it exits: the end of the stream is the call's end. A call that
        // finished its batch would have printed the result there.
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.isEmpty, "the batch was not cut short: \(printed)")
        let written = Corpus.files(in: "\(dir)/out").count
        #expect(written < 59 * 2, "\(written) files")
    }
}
