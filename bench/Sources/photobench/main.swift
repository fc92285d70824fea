// Entry point: `photobench <suite> [args...]`. Each suite lives in its own file.
import Foundation

let suites: [String: ([String]) throws -> Void] = [
    "decode": DecodeBench.run,
    "thumbnail": ThumbnailBench.run,
    "palette": PaletteBench.run,
    "sticker": StickerBench.run,
    "faces": FaceBench.run,
    "u2net": U2NetBench.run,
]

let args = Array(CommandLine.arguments.dropFirst())
guard let name = args.first, let suite = suites[name] else {
    FileHandle.standardError.write("usage: photobench <\(suites.keys.sorted().joined(separator: "|"))> [args]\n".data(using: .utf8)!)
    exit(2)
}
do {
    try suite(Array(args.dropFirst()))
} catch {
    // A thrown error at top level would trap with a backtrace; a bench user wants one line.
    FileHandle.standardError.write("photobench \(name): \(error)\n".data(using: .utf8)!)
    exit(1)
}
