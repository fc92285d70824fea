import Imaging
import JSONRPC
import JSONRPCTransport

/// `photo.process {"source", "count", "outline", "output": {"dir"}}`: sticker, palette and
/// gradient sticker of one photo.
struct PhotoProcessMethod: RPCMethod {
    static let name = "photo.process"
    static let cost = MethodCost.compute
    static let summary = "One photo: sticker and palette in parallel, then the gradient sticker."

    struct Params: Decodable, Sendable {
        var source: ImageSource
        var count: Int?
        var outline: OutlineSpec?
        /// `network` (default) or `classical` (see ``Segmenter``).
        var segmenter: Segmenter?
        var output: OutputDirectorySpec
        /// File-name stem; default: the source file's name.
        var name: String?
        /// Which subject (``SubjectSpec``); absent: the main subject the cut finds.
        var subject: SubjectSpec?
        /// The soft edge in the subject's own estimated colour (default true); false keeps the photo's colours.
        var decontaminate: Bool?
    }

    let services: WorkerServices

    func handle(_ params: Params, context: RequestContext) async throws -> PhotoProcessor.Result {
        let count = try PaletteStage.validCount(params.count)
        let access = await services.access()
        try access.prepareDirectory(params.output.dir, create: params.output.create ?? true)
        let name = params.name ?? PhotoProcessor.stem(for: params.source)
        guard !name.isEmpty, !name.contains("/") else { throw RPCError.invalidParams(path: "name", "must be a plain file name") }
        return try await PhotoProcessor(services: services, access: access).process(
            params.source, name: name, count: count, outline: params.outline ?? OutlineSpec(width: 8), directory: params.output.dir,
            segmenter: params.segmenter ?? .network,
            overwrite: params.output.overwrite ?? false,
            cut: .init(subject: params.subject, decontaminate: params.decontaminate ?? true))
    }
}
