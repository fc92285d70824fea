import Foundation
import PhotoWorkerTestSupport
import Testing

import Glibc

/// The executable's one-shot modes: `call` for shell scripts and `demo`.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct CommandLineTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], cwd: String? = nil) throws -> Run {
        let p = Process()
        p.executableURL = WorkerProcess.binary
        p.arguments = arguments
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe.
        let errData = ByteBox()
        let errRead = DispatchSemaphore(value: 0)
        Thread {
            errData.bytes.withLock { $0 = Array(err.fileHandleForReading.readDataToEndOfFile()) }
            errRead.signal()
        }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        // stderr reaches its end when the child exits; the deadline only guards against a grandchild holding it.
        #expect(errRead.wait(timeout: .now() + .seconds(60 * TestTiming.scale)) == .success, "stderr never reached its end")
        return Run(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData.bytes.withLock { $0 }, as: UTF8.self))
    }

    @Test func helpNamesTheServingFlagsAndServeHelpExplainsThem() throws {
        let top = try Self.run(["--help"])
        for flag in ["--framing", "--max-jobs", "--max-pixels", "--allow-dir", "--urls"] {
            #expect(top.stdout.contains(flag), "photoworker --help lacks \(flag): \(top.stdout)")
        }
        let serve = try Self.run(["serve", "--help"])
        let maxJobs = serve.stdout.components(separatedBy: "--max-jobs <max-jobs>").dropFirst().first?.prefix(120) ?? ""
        #expect(maxJobs.contains("number of") && !maxJobs.contains("(default: 2)"), "--max-jobs help: \(maxJobs)")
    }

    /// Every option each subcommand declares, from swift-argument-parser's own description of the command
    /// (`--experimental-dump-help`, what its manual plugin reads): long names, and whether it has help text.
    static func declaredOptions() throws -> [String: [(names: [String], help: String)]] {
        let dump = try run(["--experimental-dump-help"])
        #expect(dump.status == 0, "--experimental-dump-help: \(dump.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let command = try #require(root["command"] as? [String: Any])
        var options: [String: [(names: [String], help: String)]] = [:]
        for sub in command["subcommands"] as? [[String: Any]] ?? [] {
            let name = try #require(sub["commandName"] as? String)
            for argument in sub["arguments"] as? [[String: Any]] ?? [] {
                let names = (argument["names"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "long" }
                    .compactMap { $0["name"] as? String }.map { "--" + $0 }
                guard !names.isEmpty, names.first != "--help", names.first != "--version" else { continue }
                options[name, default: []].append((names, argument["abstract"] as? String ?? ""))
            }
        }
        return options
    }

    /// The top-level help's list of serving flags is written by hand (a summary ArgumentParser cannot make); it is
    /// checked against the options the commands declare, both ways, and every option has help text: a new flag
    /// without help, or missing from the list, fails here.
    @Test func helpListsEveryFlagTheCommandsDeclare() throws {
        let declared = try Self.declaredOptions()
        let serve = try #require(declared["serve"], "no serve in \(declared.keys.sorted())")
        #expect(serve.count >= 15, "serve declares only \(serve.map(\.names))")
        for (command, options) in declared {
            for option in options where option.help.trimmingCharacters(in: .whitespaces).isEmpty {
                Issue.record("photoworker \(command) \(option.names[0]) has no help text")
            }
        }
        let top = try Self.run(["--help"]).stdout
        let summary = try #require(top.components(separatedBy: "Flags of `photoworker [serve]`").dropFirst().first?
            .components(separatedBy: "USAGE:").first, "no list of serving flags in: \(top)")
        let listed = Set(summary.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," || $0 == "`" })
            .filter { $0.hasPrefix("--") && $0.count > 2 }
            .map { String($0.prefix { $0 == "-" || $0.isLetter }) })
        // An option is listed by one of its names (--max-line-bytes is --max-message-bytes' alias).
        let missing = serve.filter { Set($0.names).isDisjoint(with: listed) }.map { $0.names[0] }.sorted()
        #expect(missing.isEmpty, "photoworker --help lacks \(missing)")
        let stale = listed.subtracting(["--help"]).filter { flag in !serve.contains { $0.names.contains(flag) } }.sorted()
        #expect(stale.isEmpty, "photoworker --help lists flags serve does not declare: \(stale)")
        // "`call` and `demo` take all but --framing", as the list says.
        for command in ["call", "demo"] {
            let theirs = Set((declared[command] ?? []).flatMap(\.names))
            let lacking = serve.map { $0.names[0] }.filter { $0 != "--framing" && !theirs.contains($0) }
            #expect(lacking.isEmpty, "photoworker \(command) lacks \(lacking)")
        }
    }

    @Test func demoOnAMissingFolderSaysSoPlainly() throws {
        let r = try Self.run(["demo", "/definitely/not/here"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("/definitely/not/here: no such folder"), "\(r.stderr)")
        #expect(!r.stderr.contains("NSCocoaErrorDomain"), "\(r.stderr)")
    }

    @Test func callPrintsTheResultAsJSON() throws {
        let r = try Self.run(["call", "image.info", #"{"source":{"path":"\#(Corpus.photo("rocket.jpg"))"}}"#])
        #expect(r.status == 0)
        let line = try #require(r.stdout.split(separator: "\n").last)
        let result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(result?["width"] as? Int == 640)
        #expect(result?["format"] as? String == "jpeg")
    }

    /// `photoworker call photos.process ... | jq .completed`: stdout is the result alone; the events are lines on
    /// stderr (not a terminal here), JSON with --events, nothing with --quiet.
    @Test func callPrintsTheResultAloneOnStdoutAndTheEventsOnStderr() throws {
        let params = #"{"children":3,"ms":10}"#
        let r = try Self.run(["call", "--diagnostics", "diagnostics.fanout", params])
        #expect(r.status == 0)
        #expect(r.stdout == #"{"children":3}"# + "\n", "stdout: \(r.stdout)")
        let items = r.stderr.split(separator: "\n").filter { $0.hasPrefix("diagnostics.fanout: item ") }
        #expect(items.count == 3, "stderr: \(r.stderr)")
        #expect(!r.stderr.contains("\u{1B}["), "no terminal escapes when stderr is not a terminal: \(r.stderr)")

        let events = try Self.run(["call", "--diagnostics", "--events", "diagnostics.fanout", params])
        #expect(events.stdout == #"{"children":3}"# + "\n")
        let lines = events.stderr.split(separator: "\n")
        #expect(lines.count == 3 && lines.allSatisfy { $0.hasPrefix("{") && $0.contains(#""kind":"item""#) }, "\(events.stderr)")

        let quiet = try Self.run(["call", "--diagnostics", "--quiet", "diagnostics.fanout", params])
        #expect(quiet.stdout == #"{"children":3}"# + "\n")
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    /// A batch's failed item is told on stderr with its reason; the result on stdout still counts it.
    @Test func callTellsAFailedItemOnStderr() throws {
        let params = #"{"sources":[{"path":"/no/such.jpg"}],"output":{"dir":"\#(try Corpus.scratch())"}}"#
        let r = try Self.run(["call", "photos.process", params])
        #expect(r.status == 0, "\(r.stderr)")
        let result = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect(result?["failed"] as? Int == 1, "\(r.stdout)")
        #expect(r.stderr.contains("photos.process: item 0 failed: source not found or unreadable"), "\(r.stderr)")
        #expect(r.stderr.contains("photos.process: 1/1"), "\(r.stderr)")
    }

    @Test func callErrorsGoToStderrWithAFailingStatus() throws {
        let r = try Self.run(["call", "image.info", #"{"source":{"path":"/no/such.jpg"}}"#])
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("-32001"))
        let bad = try Self.run(["call", "image.info", "{not json"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("not valid JSON"))
    }

    @Test func ctrlCCancelsTheCallCleanly() throws {
        // The first streamed item (after 3 s) shows the job is running; then Ctrl-C (SIGINT).
        // If events were block-buffered, the first line would only appear once ~58 of them filled
        // the buffer (about 3 minutes), past the suite's time limit.
        let p = Process()
        p.executableURL = WorkerProcess.binary
        p.arguments = ["call", "--diagnostics", "diagnostics.fanout", #"{"children":1000,"ms":3000000}"#]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // The events are on stderr (stdout waits for the result); the first item line shows the job is running.
        var seen: [UInt8] = []
        while !seen.contains(0x0A) {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        #expect(String(decoding: seen, as: UTF8.self).contains("diagnostics.fanout: item "), "\(String(decoding: seen, as: UTF8.self))")
        kill(p.processIdentifier, SIGINT)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 130)
        #expect(stderr.contains("-32800"))
        #expect(stdout.isEmpty, "\(stdout)")
    }

    @Test func demoWritesStickersGradientsAndASheet() throws {
        let dir = try Corpus.scratch()
        let photos = "\(dir)/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for name in ["girl-1.jpg", "animal-2.jpg"] {
            try FileManager.default.copyItem(atPath: Corpus.photo(name), toPath: "\(photos)/\(name)")
        }
        let r = try Self.run(["demo", photos, "--out", "\(dir)/out", "--clip", Corpus.path("motion/cutout.gif")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("2 stickers, 0 failed"))
        // The clip as a Telegram video sticker, each fitting attempt said.
        #expect(r.stdout.contains("animated sticker of cutout.gif, for Telegram:") && r.stdout.contains("  fitting: quality ")
                && r.stdout.contains("animated sticker:  \(dir)/out/animated-sticker.webm"), "\(r.stdout)")
        #expect(r.stdout.contains("\(dir)/out/pack/"), "the demo names the messenger files' folder: \(r.stdout)")
        // Each photo's line names the file written for it, numbered as the worker numbers it (from 0).
        #expect(r.stdout.contains("animal-2.jpg") && r.stdout.contains("-> 0-animal-2-sticker.png"), "\(r.stdout)")
        #expect(r.stdout.contains("-> 1-girl-1-sticker.png") && r.stdout.contains("[1/2]") && r.stdout.contains("[2/2]"), "\(r.stdout)")
        let files = Corpus.files(in: "\(dir)/out")
        #expect(files.contains("pack-sheet.png"))
        #expect(files.filter { $0.hasSuffix("-sticker.png") }.count == 2)
        #expect(files.filter { $0.hasSuffix("-gradient.png") }.count == 2)
        #expect(Corpus.files(in: "\(dir)/out/pack").count == 2)
        #expect(files.contains("animated-sticker.webm"), "\(files)")
    }

    /// "Which one?": the demo lists a photo's subjects and cuts out the one `--choose` names by its point; a choice
    /// the photo does not have is said plainly and fails the demo, after the rest is written.
    @Test func demoListsAPhotosSubjectsAndCutsOutTheChosenOne() throws {
        // The folder's only photo has two subjects: the batch cuts it, then the demo asks which one.
        let dir = try Corpus.scratch()
        let photos = "\(dir)/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Corpus.path("subjects/pair.jpg"), toPath: "\(photos)/pair.jpg")
        let r = try Self.run(["demo", photos, "--out", "\(dir)/out", "--choose", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("which subject? pair.jpg has ") }, "\(r.stdout)")
        // The second subject of pair.jpg is one of the two halves; the chosen sticker is that half alone.
        let second = lines.first { $0.hasPrefix("  2: box ") } ?? ""
        let chose = lines.first { $0.hasPrefix("  chose 2: its point -> chosen-subject.png (box ") } ?? ""
        func x(_ line: String, after marker: String) -> Int? {
            line.components(separatedBy: marker).dropFirst().first?.split(separator: ",").first.flatMap { Int($0) }
        }
        let listedX = x(second, after: "box "), cutX = x(chose, after: "(box ")
        #expect(listedX != nil && cutX != nil && abs(listedX! - cutX!) < 20, "listed \(second), cut \(chose)")
        #expect(FileManager.default.fileExists(atPath: "\(dir)/out/chosen-subject.png"))
        #expect(r.stdout.contains("chosen subject:    \(dir)/out/chosen-subject.png"), "\(r.stdout)")

        // A choice the photo does not have: said, and the demo fails after writing the rest.
        let small = "\(dir)/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Corpus.path("subjects/pair.jpg"), toPath: "\(small)/pair.jpg")
        let none = try Self.run(["demo", small, "--out", "\(dir)/none", "--subjects-of", Corpus.photo("girl-1.jpg"),
                                 "--choose", "9"])
        #expect(none.status == 1, "\(none.status) \(none.stderr)")
        #expect(none.stdout.contains("which subject? girl-1.jpg has "), "\(none.stdout)")
        #expect(none.stdout.contains("--choose 9: the photo has "), "\(none.stdout)")
        #expect(Corpus.files(in: "\(dir)/none").contains("pack-sheet.png"))
        #expect(!Corpus.files(in: "\(dir)/none").contains("chosen-subject.png"))

        let missingClip = try Self.run(["demo", photos, "--out", "\(dir)/clip", "--clip", "\(dir)/no-such.mp4"])
        #expect(missingClip.status == 64 && missingClip.stderr.contains("--clip \(dir)/no-such.mp4: no such file"),
                "\(missingClip.status) \(missingClip.stderr)")
        let zero = try Self.run(["demo", photos, "--out", "\(dir)/zero", "--choose", "0"])
        #expect(zero.status == 64 && zero.stderr.contains("--choose counts from 1"), "\(zero.status) \(zero.stderr)")
    }

    /// A photo the worker cannot read is reported with the error's detail and does not stop the rest.
    @Test func demoReportsWhyAPhotoFailed() throws {
        let dir = try Corpus.scratch()
        let photos = "\(dir)/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Corpus.photo("girl-1.jpg"), toPath: "\(photos)/girl-1.jpg")
        try Data("not a jpeg at all".utf8).write(to: URL(fileURLWithPath: "\(photos)/broken.jpg"))
        let r = try Self.run(["demo", photos, "--out", "\(dir)/out"])
        #expect(r.status == 1, "a failed photo fails the demo, after the others are written: \(r.status) \(r.stderr)")
        #expect(r.stdout.contains("1 sticker, 1 failed"))
        #expect(Corpus.files(in: "\(dir)/out").contains("pack-sheet.png"))
        let failure = r.stdout.split(separator: "\n").first { $0.contains("broken.jpg") }.map(String.init) ?? ""
        #expect(failure.contains("failed: not a valid or supported image ("), "\(r.stdout)")
    }

    /// A wrong --count is a usage error before any work: no output folder, no internal dump.
    @Test func demoChecksItsArgumentsBeforeAnyWork() throws {
        let dir = try Corpus.scratch()
        let r = try Self.run(["demo", "--count", "12", "--out", "\(dir)/out"])
        #expect(r.status == 64, "\(r.status)")
        #expect(r.stderr.contains("--count must be between 3 and 10 (got 12)"), "\(r.stderr)")
        #expect(!r.stderr.contains("RPCError") && !r.stderr.contains("JSONValue"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/out"))
    }

    /// The help a package user gets points at documentation they have: the OpenRPC description through the
    /// binary, and the guide's file when this installation has one (a checkout's protocol/README.md here).
    @Test func helpPointsAtDocumentationTheUserHas() throws {
        let r = try Self.run(["--help"])
        #expect(r.stdout.contains("photoworker call rpc.discover"), "\(r.stdout)")
        let guide = Corpus.packageRoot.appendingPathComponent("protocol/README.md").standardizedFileURL.path
        #expect(r.stdout.contains(guide), "the checkout's guide by its path: \(r.stdout)")
    }

    /// `--log-level debug` says what each request did: its method, id, duration and outcome.
    @Test func debugLoggingTellsEachRequest() throws {
        let p = Process()
        p.executableURL = WorkerProcess.binary
        p.arguments = ["--log-level", "debug"]
        let input = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = input
        p.standardOutput = out
        p.standardError = err
        try p.run()
        input.fileHandleForWriting.write(Data("""
            {"jsonrpc":"2.0","id":1,"method":"ping"}
            {"jsonrpc":"2.0","id":2,"method":"image.info","params":{"source":{"path":"/no/such.jpg"}}}

            """.utf8))
        try input.fileHandleForWriting.close()
        _ = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let lines = stderr.split(separator: "\n").filter { $0.contains("request finished") }
        #expect(lines.contains { $0.contains("method=ping") && $0.contains("id=1") && $0.contains("outcome=ok") && $0.contains("ms=") }, "\(stderr)")
        #expect(lines.contains { $0.contains("method=image.info") && $0.contains("id=2") && $0.contains("outcome=error -32001") }, "\(stderr)")
    }

    /// A person who starts `photoworker` on a terminal is told it waits for JSON-RPC on stdin; a client's pipe is not.
    @Test func servingOnATerminalSaysWhatItWaitsFor() throws {
        var controller: Int32 = -1, terminal: Int32 = -1
        try #require(openpty(&controller, &terminal, nil, nil, nil) == 0)
        let p = Process()
        p.executableURL = WorkerProcess.binary
        let err = Pipe()
        p.standardInput = FileHandle(fileDescriptor: terminal, closeOnDealloc: true)
        p.standardOutput = Pipe()
        p.standardError = err
        try p.run()
        // The worker reads its stdin to the end: an end-of-file on the terminal (Ctrl-D) ends it.
        var eof: [UInt8] = [0x04]
        _ = write(controller, &eof, 1)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        close(controller)
        #expect(stderr.contains("waiting for JSON-RPC 2.0 requests on stdin"), "\(stderr)")
        #expect(stderr.contains("photoworker --help"), "\(stderr)")

        let piped = try Self.runServing(stdin: #"{"jsonrpc":"2.0","id":1,"method":"ping"}"# + "\n")
        #expect(!piped.stderr.contains("waiting for JSON-RPC"), "\(piped.stderr)")
    }

    static func runServing(stdin: String) throws -> Run {
        let p = Process()
        p.executableURL = WorkerProcess.binary
        let input = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = input
        p.standardOutput = out
        p.standardError = err
        try p.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }
}
