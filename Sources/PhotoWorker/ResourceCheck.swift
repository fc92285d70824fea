import BundledResources
import Foundation
import Imaging

/// The resource bundles a worker needs beside its executable, checked when it starts so a worker copied without
/// them says so at once (on stderr) instead of quietly doing less: no faces protected, the classical cut instead
/// of the network, no sample photos for `demo`.
public enum ResourceCheck {
    /// One sentence per missing resource: what is missing, where it was looked for, what the worker does without.
    public static func problems() -> [String] {
        let needed: [(file: String, bundle: BundledResource.Bundle, without: String)] = [
            ("u2netp.bin", .inference, "stickers use the classical cut instead of the U²-Netp network"),
            ("haarcascade_frontalface_alt2.txt", .imaging, "stickers are cut without finding faces"),
            ("samples", .photoWorker, "`photoworker demo` needs a folder of photos"),
        ]
        let home = Bundle.main.bundleURL.path
        return needed.compactMap { need in
            guard BundledResource.url(need.file, in: need.bundle) == nil else { return nil }
            return "resource missing: \(need.bundle.directoryName)/\(need.file) is not beside the executable in \(home); \(need.without). Install the worker with its bundles (the packages carry them)."
        }
    }
}
