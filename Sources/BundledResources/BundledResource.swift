import Foundation

/// Files of this package's resource bundles (the face cascade, the network's weights, the sample photos), found
/// beside the running executable and nowhere else. The one place the bundles' names are spelled (``Bundle``):
/// Imaging, Inference and PhotoWorker look their files up here, `ResourceCheck` names what is missing, and
/// scripts/package.sh copies whatever bundles the build made.
///
/// Not `Bundle.module`: SwiftPM's accessor also looks in the build folder the binary was made in, so a copied binary
/// worked only while that checkout existed, and it stops the process when the bundle is nowhere. A worker installed
/// without a bundle says so when it starts (PhotoWorker's `ResourceCheck`) and still serves what does not need it.
public enum BundledResource {
    /// A target's resource bundle.
    public enum Bundle: String, Sendable, CaseIterable {
        case imaging = "Imaging"
        case inference = "Inference"
        case photoWorker = "PhotoWorker"

        /// SwiftPM's name for the bundle, `<package>_<target>.resources` (the package is Package.swift's `name`).
        public var directoryName: String { "PhotoWorker_\(rawValue).resources" }
    }

    /// `relative` inside `bundle` beside the executable; SwiftPM's layout keeps the `.copy`'d folder inside the bundle.
    public static func url(_ relative: String, in bundle: Bundle) -> URL? {
        let root = Foundation.Bundle.main.bundleURL.appendingPathComponent(bundle.directoryName)
        let candidates = [root.appendingPathComponent("Resources/\(relative)"), root.appendingPathComponent(relative)]
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
    }
}
