import Imaging

extension Segmenter {
    /// The networks of the network's cut: nil when this is `classical`, or when the model cannot be loaded (a
    /// worker installed without its bundle, or a damaged one). The one place a network that cannot be loaded
    /// becomes the classical cut; ``reason(asked:)`` says so in every result it cuts.
    var loadedNetworks: SubjectNetwork.Networks? {
        guard self == .network else { return nil }
        return try? SubjectNetwork.Networks.load()
    }

    /// Why a cut asked to be `asked` ran as this segmenter, or what it ran without: the network that could not be
    /// loaded, the face cascade that is missing. Nil when it is the cut asked for with every resource it uses (the
    /// field is then absent from results). Stated in every result, not only logged at start, so a client sees the
    /// cut it got and why.
    func reason(asked: Segmenter) -> String? {
        var reasons: [String] = []
        if asked == .network, self == .classical {
            do { _ = try SubjectNetwork.Networks.load() } catch {
                reasons.append("the network could not be loaded (\(error)); the classical cut ran instead")
            }
        }
        if !FaceDetector.isAvailable {
            reasons.append("the face cascade (PhotoWorker_Imaging.resources) could not be loaded; no faces were looked for")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    /// The schema of `segmenterReason` in the results that name a segmenter.
    static let reasonSchema = #"{"type": "string", "description": "Present when the cut is not the one asked for, or ran without a resource it uses (a worker installed without its bundles): why, in words, e.g. the network could not be loaded and the classical cut ran instead. The worker also says so on stderr when it starts."}"#
}
