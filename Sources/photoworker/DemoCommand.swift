import ArgumentParser
import Foundation
import JSONRPC
import JSONRPCTransport
import PhotoWorker

extension PhotoWorkerCommand {
    /// `photoworker demo [folder]`: the sticker pipeline on sample photos, with progress.
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Process sample photos into stickers, gradient stickers, messenger files and a pack sheet.",
            discussion: """
                Without a folder, uses the photos bundled with photoworker. Results go to --out (default
                ./photoworker-demo): each photo's sticker and gradient sticker (named after the photo, numbered from
                0 in folder order), pack-sheet.png, and pack/ with one file per sticker, ready for a messenger.
                Then the separate subjects of one photo (--subjects-of; by default the bundled photo with two
                subjects, or the folder's first photo) are listed, and the one --choose names is cut out by the
                point the worker gave it, as chosen-subject.png. Last, the subject of a clip (--clip; by default the
                bundled one, a pan across the two-subject photo) is cut out in every frame as a Telegram video
                sticker, animated-sticker.webm.
                The exit status is 1 when any photo failed (the others are still written).
                """)

        @Argument(help: "A folder of photos: JPEG, PNG, WebP, GIF, HEIC/HEIF or AVIF (default: the bundled samples).")
        var folder: String?

        @Option(help: "Where to write the results.")
        var out: String = "photoworker-demo"

        @Option(help: "Palette size (\(Self.paletteSizes.lowerBound) to \(Self.paletteSizes.upperBound)).")
        var count: Int = 5

        @Option(help: "The photo whose subjects are listed and one chosen (default: the bundled two-subject photo, or the folder's first photo).")
        var subjectsOf: String?

        @Option(help: "Which of its subjects to cut out, 1 being the largest (default: the second when there are two or more).")
        var choose: Int?

        @Option(help: "A clip (MP4/MOV, WebM, GIF or animated WebP) to make an animated sticker of (default: the bundled clip, when no folder is given).")
        var clip: String?

        @OptionGroup var flags: WorkerFlags

        /// Checked here, before any work, so a wrong `--count` is a usage error and not a failure half-way through.
        static let paletteSizes = Worker.paletteCounts

        func validate() throws {
            guard Self.paletteSizes.contains(count) else {
                throw ValidationError("--count must be between \(Self.paletteSizes.lowerBound) and \(Self.paletteSizes.upperBound) (got \(count))")
            }
            if let choose, choose < 1 { throw ValidationError("--choose counts from 1, the largest subject (got \(choose))") }
            if let subjectsOf, !FileManager.default.isReadableFile(atPath: subjectsOf) {
                throw ValidationError("--subjects-of \(subjectsOf): no such file, or it cannot be read")
            }
            if let clip, !FileManager.default.isReadableFile(atPath: clip) {
                throw ValidationError("--clip \(clip): no such file, or it cannot be read")
            }
        }

        func run() async throws {
            let sources = try listSources()
            guard !sources.isEmpty else {
                throw ValidationError("no photos (\(Self.extensions.sorted().map { "." + $0 }.joined(separator: ", "))) in \(folder ?? "the samples")")
            }
            let out = URL(fileURLWithPath: out).standardizedFileURL.path
            do {
                try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            } catch {
                throw ValidationError("\(out): cannot create the output folder (\(error.localizedDescription))")
            }
            Terminal.prepare()
            say("photoworker demo: \(sources.count) photo\(sources.count == 1 ? "" : "s") -> \(out)")
            if Terminal.isOutputClosed { Terminal.exitForClosedOutput() }
            let start = ContinuousClock.now
            // The demo speaks to the worker exactly as a client would, over an in-process pipe.
            let session = try InProcessWorker.start(flags: flags)
            do {
                try await demo(sources: sources, out: out, session: session, start: start)
            } catch let error as RPCError {
                await session.close()
                if error.code == .requestCancelled && Terminal.isOutputClosed { Terminal.exitForClosedOutput() }
                let data = error.data.map { " \($0.jsonString)" } ?? ""
                Terminal.error("photoworker demo: \(error.message) (\(error.code.rawValue))\(data)")
                throw ExitCode.failure
            }
        }

        private func demo(sources: [String], out: String, session: InProcessConnection, start: ContinuousClock.Instant) async throws {
            let params: JSONValue = [
                "sources": .array(sources.map { ["path": .string($0)] }),
                "count": .int(count), "outline": ["width": 8, "color": "#FFFFFF"], "output": ["dir": .string(out)],
            ]
            var stickers: [String] = []
            var finished = 0
            let batch = try await session.call("photos.process", params) { event in
                guard event["kind"] == "item", let index = event["index"]?.intValue else { return }
                finished += 1
                // Completion order on the left ("3/6"); the sticker's own file name, numbered as the worker numbers
                // it, on the right, so what is on screen is what is in the folder.
                let counter = String(format: "[%*d/%d]", String(sources.count).count, finished, sources.count)
                let name = (sources[index] as NSString).lastPathComponent
                if let r = event["result"] {
                    let colors = r["palette"].flatMap { v -> String? in
                        guard case .array(let a) = v else { return nil }
                        return a.compactMap { $0["hex"]?.stringValue }.joined(separator: " ")
                    } ?? ""
                    let ms = r["timings"]?["totalMs"]?.doubleValue ?? 0
                    let file = r["sticker"]?["path"]?.stringValue
                    if let file { stickers.append(file) }
                    let written = file.map { "  -> \(($0 as NSString).lastPathComponent)" } ?? ""
                    say(String(format: "  %@ %@  %.0f ms  palette %@%@", counter, name, ms, colors, written))
                } else {
                    // The error's `data.detail` says why (e.g. "only 8-bit JPEG is supported"); the message alone
                    // ("not a valid or supported image") leaves the user guessing.
                    let message = event["error"]?["message"]?.stringValue ?? "?"
                    let detail = event["error"]?["data"]?["detail"]?.stringValue.map { " (\($0))" } ?? ""
                    say("  \(counter) \(name)  failed: \(message)\(detail)")
                }
                // The reader went away (`photoworker demo | head -2`): stop the batch; its answer, -32800, ends the demo.
                if Terminal.isOutputClosed { session.cancel(session.lastID) }
            }
            let completed = batch["completed"]?.intValue ?? 0, failed = batch["failed"]?.intValue ?? 0
            let sheet = "\(out)/pack-sheet.png", pack = "\(out)/pack"
            if !stickers.isEmpty {
                _ = try await session.call("pack.export", [
                    "stickers": .array(stickers.sorted().map { ["path": .string($0)] }), "cellSize": 320,
                    "background": "#F4F1EA", "output": ["path": .string(sheet)], "filesDir": .string(pack),
                ]) { _ in }
            }
            let chosen = try await chooseSubject(of: subjectsOf ?? (folder == nil ? SampleImages.twoSubjects : sources.first),
                                                 out: out, session: session)
            let animated = try await animatedSticker(of: clip ?? (folder == nil ? SampleImages.clip : nil), out: out,
                                                     session: session)
            await session.close()
            say(String(format: "done in %.1f s: %d sticker%@, %d failed", (ContinuousClock.now - start).inSeconds,
                       completed, completed == 1 ? "" : "s", failed))
            if !stickers.isEmpty {
                say("  stickers:          \(out)/*-sticker.png")
                say("  gradient stickers: \(out)/*-gradient.png")
                say("  pack sheet:        \(sheet)")
                say("  messenger files:   \(pack)/ (one per sticker)")
            }
            if let chosen { say("  chosen subject:    \(chosen)") }
            if let animated { say("  animated sticker:  \(animated)") }
            if Terminal.isOutputClosed { Terminal.exitForClosedOutput() }
            if failed > 0 || stickers.isEmpty || (chosen == nil && choose != nil) || (animated == nil && clip != nil) {
                throw ExitCode.failure
            }
        }

        /// The clip's subject cut out in every frame as a Telegram video sticker (`image.animatedSticker` with a
        /// target), with a line per fitting attempt. Returns the file written, or nil (reported on the way).
        private func animatedSticker(of clip: String?, out: String, session: InProcessConnection) async throws -> String? {
            guard let clip else { return nil }
            let name = (clip as NSString).lastPathComponent, file = "\(out)/animated-sticker.webm"
            say("animated sticker of \(name), for Telegram:")
            do {
                let r = try await session.call("image.animatedSticker", [
                    "source": ["path": .string(clip)], "target": "telegram", "output": ["path": .string(file)],
                ]) { event in
                    if let message = event["message"]?.stringValue { say("  \(message)") }
                }
                say(String(format: "  %d frames, %d cut by the network -> %@ (%@)", r["frames"]?.intValue ?? 0,
                           r["keyFrames"]?.intValue ?? 0, (file as NSString).lastPathComponent,
                           r["target"]?["encoding"]?.stringValue ?? ""))
                return file
            } catch let error as RPCError where error.code != .requestCancelled {
                let detail = error.data?["detail"]?.stringValue.map { " (\($0))" } ?? ""
                say("  failed: \(error.message)\(detail)")
                return nil
            }
        }

        /// "Which one?": lists the photo's separate subjects (`image.subjects`) and cuts out the one `--choose` names
        /// by the point the worker gave it (`subject.point` on `image.sticker`), as a UI would. Returns the file
        /// written, or nil when there was nothing to choose (reported on the way).
        private func chooseSubject(of photo: String?, out: String, session: InProcessConnection) async throws -> String? {
            guard let photo else { return nil }
            let name = (photo as NSString).lastPathComponent
            let found: JSONValue
            do {
                found = try await session.call("image.subjects", ["source": ["path": .string(photo)]]) { _ in }
            } catch let error as RPCError where error.code != .requestCancelled {
                say("which subject? \(name): \(error.message)")
                return nil
            }
            guard case .array(let subjects)? = found["subjects"], !subjects.isEmpty else {
                say("which subject? \(name): no subject found")
                return nil
            }
            say("which subject? \(name) has \(subjects.count):")
            for (i, s) in subjects.enumerated() {
                var p: [Int] = []
                if case .array(let xy)? = s["point"] { p = xy.compactMap(\.intValue) }
                say(String(format: "  %d: box %@  point %@  score %.2f", i + 1, Self.boxText(s["box"]),
                           p.map(String.init).joined(separator: " "), s["score"]?.doubleValue ?? 0))
            }
            let pick = choose ?? min(2, subjects.count)
            guard pick <= subjects.count, let point = subjects[pick - 1]["point"] else {
                say("  --choose \(pick): the photo has \(subjects.count) subject\(subjects.count == 1 ? "" : "s")")
                return nil
            }
            let file = "\(out)/chosen-subject.png"
            let r = try await session.call("image.sticker", [
                "source": ["path": .string(photo)], "subject": ["point": point],
                "outline": ["width": 8, "color": "#FFFFFF"], "output": ["path": .string(file)],
            ]) { _ in }
            say(String(format: "  chose %d: its point -> %@ (box %@)", pick, (file as NSString).lastPathComponent,
                       Self.boxText(r["boundingBox"])))
            return file
        }

        /// A result's box (`{x, y, width, height}`) as `x,y WxH`.
        private static func boxText(_ box: JSONValue?) -> String {
            func value(_ key: String) -> Int { box?[key]?.intValue ?? 0 }
            return "\(value("x")),\(value("y")) \(value("width"))x\(value("height"))"
        }

        /// One line of the demo's report on stdout; a closed stdout is noticed by the caller.
        private func say(_ text: String) { Terminal.line(text) }

        /// File name extensions the demo picks up from a folder (the worker itself sniffs the content).
        static let extensions = SampleImages.photoExtensions

        private func listSources() throws -> [String] {
            guard let folder else { return SampleImages.paths }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
                throw ValidationError("\(folder): no such folder")
            }
            guard isDirectory.boolValue else { throw ValidationError("\(folder): not a folder") }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
                throw ValidationError("\(folder): cannot be read (permission denied?)")
            }
            return names.filter { Self.extensions.contains(($0 as NSString).pathExtension.lowercased()) }
                .sorted().map { (folder as NSString).appendingPathComponent($0) }
        }
    }
}
