// Entry point: `photobench <suite> [args...]`. Each suite lives in its own file.
import Foundation

let suiteNames = ["decode", "thumbnail", "palette", "sticker", "faces", "u2net", "gemm", "motion", "animation", "halo", "subjects", "flow"]

/// Runs one suite (the sticker suite is async: it runs the sticker's stage graph).
func run(suite: String, _ args: [String]) async throws {
    switch suite {
    case "decode": try DecodeBench.run(args)
    case "thumbnail": try ThumbnailBench.run(args)
    case "palette": try PaletteBench.run(args)
    case "sticker": try await StickerBench.run(args)
    case "faces": try FaceBench.run(args)
    case "u2net": try U2NetBench.run(args)
    case "gemm": try GemmBench.run(args)
    case "motion": try MotionBench.run(args)
    case "animation": try AnimationBench.run(args)
    case "halo": try HaloBench.run(args)
    case "subjects": try await SubjectsBench.run(args)
    case "flow": try FlowBench.run(args)
    default: preconditionFailure("unknown suite \(suite)")
    }
}

let args = Array(CommandLine.arguments.dropFirst())
guard let name = args.first, suiteNames.contains(name) else {
    FileHandle.standardError.write("usage: photobench <\(suiteNames.sorted().joined(separator: "|"))> [args]\n".data(using: .utf8)!)
    exit(2)
}
do {
    try await run(suite: name, Array(args.dropFirst()))
} catch {
    // A thrown error at top level would trap with a backtrace; a bench user wants one line.
    FileHandle.standardError.write("photobench \(name): \(error)\n".data(using: .utf8)!)
    exit(1)
}
