import BundledResources
import Foundation
import Imaging

/// The sample photos bundled with the package (used by `photoworker demo`).
public enum SampleImages {
    /// Paths of the bundled sample photos, sorted.
    public static var paths: [String] {
        guard let dir = BundledResource.url("samples", in: .photoWorker) else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".png") }
            .sorted().map { dir.appendingPathComponent($0).path }
    }

    /// File-name extensions of the formats the worker reads as photos (for picking files from a folder; the worker
    /// itself sniffs the content).
    public static let photoExtensions = Set(ImageFormat.read.flatMap(\.facts.extensions))

    /// The bundled photo with two subjects side by side (two of the samples), whose subjects the demo lists and
    /// chooses among; nil when the bundle lacks it.
    public static var twoSubjects: String? {
        BundledResource.url("subjects/two-subjects.jpg", in: .photoWorker)?.path
    }

    /// The bundled clip (a pan across the two-subject photo, 2 s) the demo makes an animated sticker of; nil when the
    /// bundle lacks it.
    public static var clip: String? {
        BundledResource.url("clips/pan.mp4", in: .photoWorker)?.path
    }
}
