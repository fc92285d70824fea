import Foundation

/// Files of the PhotoWorker resource bundle (the OpenRPC document, the sample photos), found beside the running
/// executable and nowhere else.
///
/// Not `Bundle.module`: SwiftPM's accessor also looks in the build folder the binary was made in, so a copied binary
/// worked only while that checkout existed, and it stops the process when the bundle is nowhere. A worker installed
/// without its bundle still serves: without the document nothing is listed for `rpc.discover` or MCP and parameter
/// names go unchecked, without samples `demo` needs a folder.
enum BundledResource {
    static let bundleName = "PhotoWorker_PhotoWorker.resources"

    /// `relative` inside the bundle beside the executable (SwiftPM's layout keeps the `.copy`'d folder inside it).
    static func url(_ relative: String) -> URL? {
        let bundle = Bundle.main.bundleURL.appendingPathComponent(bundleName)
        let candidates = [bundle.appendingPathComponent("Resources/\(relative)"), bundle.appendingPathComponent(relative)]
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
    }
}
