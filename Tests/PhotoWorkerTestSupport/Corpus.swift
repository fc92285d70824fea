import Foundation

/// Paths into the project's test corpus (corpus/ at the package root; see corpus/README.md).
package enum Corpus {
    package static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    package static let root = packageRoot.appendingPathComponent("corpus")

    package static func photo(_ name: String) -> String { root.appendingPathComponent("photos/\(name)").path }
    package static func broken(_ name: String) -> String { root.appendingPathComponent("broken/\(name)").path }
    package static var brokenFiles: [String] {
        let dir = root.appendingPathComponent("broken").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted().map { "\(dir)/\($0)" }
    }

    /// A fresh empty folder for a test's outputs.
    package static func scratch(_ name: String = #function) throws -> String {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("photoworker-e2e-\(safe)-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Corpus files in `folder` (relative to the corpus root) with the given extensions.
    package static func corpusFiles(_ folder: String, extensions: Set<String> = ["png", "jpg"]) -> [URL] {
        let dir = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.sorted().map { dir.appendingPathComponent($0) }
            .filter { extensions.contains($0.pathExtension.lowercased()) }
    }

    package static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    package static func files(in dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }
}
