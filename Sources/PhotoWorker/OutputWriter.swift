import Compute
import Foundation
import Imaging

import Glibc

/// Encodes an image and delivers it as its `OutputSpec` says.
///
/// Files are written atomically through ``FileAccess/writeAtomically(_:to:overwrite:)``: a
/// temporary file in the destination folder, a cancellation check, then a rename. A failed or
/// cancelled job leaves nothing behind, and an output never destroys what the worker could not
/// have made (see ``AccessPolicy/Replace``).
public enum OutputWriter {
    /// Encodes and writes on the compute threads.
    public static func write(_ image: Image, to spec: OutputSpec, access: FileAccess, on compute: ComputeJob) async throws -> OutputResult {
        try await compute.run { loop in try write(image, to: spec, access: access, on: loop) }
    }

    /// Encodes and writes in the calling piece, its encoder's parts spread over `loop`.
    public static func write(_ image: Image, to spec: OutputSpec, access: FileAccess, on loop: some ParallelLoop) throws -> OutputResult {
        let encoded = try encode(image, spec, on: loop)
        var result = OutputResult(path: nil, data: nil, format: spec.format, width: image.width, height: image.height, bytes: encoded.count)
        if spec.inline {
            try loop.checkCancellation()
            result.data = Data(encoded).base64EncodedString()
            return result
        }
        // The decoder refuses a spec with neither; a spec built in code could still have none.
        guard let path = spec.path else {
            throw WorkerError.outputFailed(path: "", reason: "the output has neither a path nor \"inline\": true")
        }
        try access.writeAtomically(encoded, to: path, overwrite: spec.overwrite, on: loop)
        result.path = path
        return result
    }

    public static func encode(_ image: Image, _ spec: OutputSpec, on loop: some ParallelLoop) throws -> [UInt8] {
        do {
            switch spec.format {
            case .png: return try ImageCodec.encodePNG(image, compressionLevel: spec.compressionLevel, on: loop)
            case .jpeg: return try ImageCodec.encodeJPEG(image, quality: spec.quality, progressive: spec.progressive)
            case .webp: return try ImageCodec.encodeWebP(image, lossless: spec.lossless, quality: spec.quality)
            case .apng, .gif, .heif, .avif, .webm:
                // OutputSpec's decoder refuses these; a spec built in code could still name one.
                throw ImagingError.encodingFailed(message: "the worker does not write \(spec.format.displayName)")
            }
        } catch let error as ImagingError {
            throw WorkerError.encodingFailed(detail: error.message)
        }
    }
}
