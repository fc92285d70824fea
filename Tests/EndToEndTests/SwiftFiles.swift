import Foundation

/// The Swift files of the checkout that the text scans read (``TestTimeLimitTests``, ``AwaitDeadlineTests``,
/// ``ModuleImportsTests``).
enum SwiftFiles {
    /// Every `.swift` file under `folder`, at any depth, as paths relative to it, sorted.
    static func under(_ folder: URL) -> [String] {
        (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }.sorted()
    }
}
