import Foundation

/// Where the protocol's guide is for the person reading `--help`: the packages ship it as PROTOCOL.md beside the
/// binary, a checkout has it as protocol/README.md; the sentence names the file that exists on this machine.
enum ProtocolGuide {
    static var sentence: String {
        if let path = path { return "the protocol's guide, with examples, is \(path)." }
        return "the protocol's guide is PROTOCOL.md in the packages (protocol/README.md in the source)."
    }

    /// The guide's absolute path, if this installation has one.
    static var path: String? {
        // /proc/self/exe: the binary itself, however it was started (a bare name on PATH, a launcher's exec).
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let candidates = [
            folder.appendingPathComponent("PROTOCOL.md"),
            // A checkout: .build/<configuration>/photoworker
            folder.appendingPathComponent("../../protocol/README.md"),
            folder.appendingPathComponent("../../../protocol/README.md"),
        ]
        return candidates.map { $0.standardizedFileURL.path }.first { FileManager.default.fileExists(atPath: $0) }
    }
}
