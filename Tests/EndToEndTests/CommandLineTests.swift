import Foundation
import PhotoWorkerTestSupport
import Testing

import Glibc

/// The executable's one-shot modes: `call` for shell scripts and `demo`.
@Suite(.timeLimit(TestTiming.minutes(2)))
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
        let t = Thread { errData.bytes.withLock { $0 = Array(err.fileHandleForReading.readDataToEndOfFile()) } }
        t.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while t.isExecuting || !t.isFinished { usleep(1000) }
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

    @Test func callPrintsStreamedEventsBeforeTheResult() throws {
        let r = try Self.run(["call", "--diagnostics", "diagnostics.fanout", #"{"children":3,"ms":10}"#])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.prefix(3).allSatisfy { $0.contains(#""kind":"item""#) })
        #expect(lines.last == #"{"children":3}"#)
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
        var seen: [UInt8] = []
        while !seen.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        #expect(String(decoding: seen, as: UTF8.self).contains(#""kind":"item""#))
        kill(p.processIdentifier, SIGINT)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 130)
        #expect(stderr.contains("-32800"))
    }

    @Test func demoWritesStickersGradientsAndASheet() throws {
        let dir = try Corpus.scratch()
        let photos = "\(dir)/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for name in ["girl-1.jpg", "animal-2.jpg"] {
            try FileManager.default.copyItem(atPath: Corpus.photo(name), toPath: "\(photos)/\(name)")
        }
        let r = try Self.run(["demo", photos, "--out", "\(dir)/out"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("2 stickers, 0 failed"))
        let files = Corpus.files(in: "\(dir)/out")
        #expect(files.contains("pack-sheet.png"))
        #expect(files.filter { $0.hasSuffix("-sticker.png") }.count == 2)
        #expect(files.filter { $0.hasSuffix("-gradient.png") }.count == 2)
        #expect(Corpus.files(in: "\(dir)/out/pack").count == 2)
    }

    /// A photo the worker cannot read is reported with the error's detail and does not stop the rest.
    @Test func demoReportsWhyAPhotoFailed() throws {
        let dir = try Corpus.scratch()
        let photos = "\(dir)/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Corpus.photo("girl-1.jpg"), toPath: "\(photos)/girl-1.jpg")
        try Data("not a jpeg at all".utf8).write(to: URL(fileURLWithPath: "\(photos)/broken.jpg"))
        let r = try Self.run(["demo", photos, "--out", "\(dir)/out"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("1 sticker, 1 failed"))
        let failure = r.stdout.split(separator: "\n").first { $0.contains("broken.jpg") }.map(String.init) ?? ""
        #expect(failure.contains("failed: not a valid or supported image ("), "\(r.stdout)")
    }
}
