import ArgumentParser
import Foundation
import JSONRPC
import JSONRPCTransport
import PhotoWorker

extension PhotoWorkerCommand {
    /// `photoworker demo [folder]`: the sticker pipeline on sample photos, with progress.
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Process sample photos into stickers, gradient stickers and a pack sheet.",
            discussion: "Without a folder, uses the photos bundled with photoworker. Results go to --out (default ./photoworker-demo).")

        @Argument(help: "A folder of photos: JPEG, PNG, WebP, GIF, HEIC/HEIF or AVIF (default: the bundled samples).")
        var folder: String?

        @Option(help: "Where to write the results.")
        var out: String = "photoworker-demo"

        @Option(help: "Palette size (3 to 10).")
        var count: Int = 5

        @OptionGroup var flags: WorkerFlags

        func run() async throws {
            let sources = try listSources()
            guard !sources.isEmpty else {
                throw ValidationError("no photos (\(Self.extensions.sorted().map { "." + $0 }.joined(separator: ", "))) in \(folder ?? "the samples")")
            }
            let out = URL(fileURLWithPath: out).standardizedFileURL.path
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            Terminal.line("photoworker demo: \(sources.count) photos -> \(out)")
            let start = ContinuousClock.now
            // The demo speaks to the worker exactly as a client would, over an in-process pipe.
            let session = try InProcessWorker.start(flags: flags)
            let params: JSONValue = [
                "sources": .array(sources.map { ["path": .string($0)] }),
                "count": .int(count), "outline": ["width": 8, "color": "#FFFFFF"], "output": ["dir": .string(out)],
            ]
            var stickers: [String] = []
            let batch = try await session.call("photos.process", params) { event in
                guard event["kind"] == "item", let index = event["index"]?.intValue else { return }
                let name = (sources[index] as NSString).lastPathComponent
                if let r = event["result"] {
                    let colors = r["palette"].flatMap { v -> String? in
                        guard case .array(let a) = v else { return nil }
                        return a.compactMap { $0["hex"]?.stringValue }.joined(separator: " ")
                    } ?? ""
                    let ms = r["timings"]?["totalMs"]?.doubleValue ?? 0
                    Terminal.line(String(format: "  [%2d] %@  sticker+gradient in %.0f ms  palette %@", index + 1, name, ms, colors))
                    if let p = r["sticker"]?["path"]?.stringValue { stickers.append(p) }
                } else {
                    // The error's `data.detail` says why (e.g. "only 8-bit JPEG is supported"); the message alone
                    // ("not a valid or supported image") leaves the user guessing.
                    let message = event["error"]?["message"]?.stringValue ?? "?"
                    let detail = event["error"]?["data"]?["detail"]?.stringValue.map { " (\($0))" } ?? ""
                    Terminal.line("  [\(String(format: "%2d", index + 1))] \(name)  failed: \(message)\(detail)")
                }
            }
            guard stickers.count > 0 else { throw ExitCode.failure }
            let sheet = "\(out)/pack-sheet.png"
            _ = try await session.call("pack.export", [
                "stickers": .array(stickers.sorted().map { ["path": .string($0)] }), "cellSize": 320,
                "background": "#F4F1EA", "output": ["path": .string(sheet)], "filesDir": .string("\(out)/pack"),
            ]) { _ in }
            await session.close()
            let completed = batch["completed"]?.intValue ?? 0
            Terminal.line(String(format: "done in %.1f s: %d sticker%@, %d failed", (ContinuousClock.now - start).inSeconds,
                         completed, completed == 1 ? "" : "s", batch["failed"]?.intValue ?? 0))
            Terminal.line("  stickers:          \(out)/*-sticker.png")
            Terminal.line("  gradient stickers: \(out)/*-gradient.png")
            Terminal.line("  pack sheet:        \(sheet)")
        }

        /// File name extensions the demo picks up from a folder (the worker itself sniffs the content).
        static let extensions: Set<String> = ["jpg", "jpeg", "png", "webp", "gif", "heic", "heif", "avif"]

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
