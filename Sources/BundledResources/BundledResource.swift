import Foundation

/// Files of this package's resource bundles (the face cascade, the network's weights, the sample photos), found
/// beside the running executable and nowhere else.
///
/// Not `Bundle.module`: SwiftPM's accessor also looks in the build folder the binary was made in, so a copied binary
/// worked only while that checkout existed, and it stops the process when the bundle is nowhere. A worker installed
/// without a bundle says so when it starts (PhotoWorker's `ResourceCheck`) and still serves what does not need it.
public enum BundledResource {
    /// `relative` inside `bundle` (`PhotoWorker_<Target>.resources`) beside the executable; SwiftPM's layout keeps
    /// the `.copy`'d folder inside the bundle.
    public static func url(_ relative: String, bundle: String) -> URL? {
        let root = Bundle.main.bundleURL.appendingPathComponent(bundle)
        let candidates = [root.appendingPathComponent("Resources/\(relative)"), root.appendingPathComponent(relative)]
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
    }
}
