import JSONRPCTransport
@testable import PhotoWorker
import Testing

/// An output is what was asked for or a -32602: never bytes of one format under another's name, never an option
/// silently dropped.
@Suite(.timeLimit(.minutes(10)))
struct OutputSpecTests {
    private func spec(_ json: String) throws -> OutputSpec {
        try JSONValueDecoder().decode(OutputSpec.self, from: try JSONParser.parse(Array(json.utf8)))
    }

    /// `data.path` and `data.reason` of the -32602 the spec gets, or nil when it decodes.
    private func refusal(_ json: String) -> (path: String, reason: String)? {
        do {
            _ = try spec(json)
            return nil
        } catch {
            let rpc = RPCError(error)
            #expect(rpc.code == .invalidParams)
            return (rpc.data?["path"]?.stringValue ?? "", rpc.data?["reason"]?.stringValue ?? "")
        }
    }

    @Test func theExtensionChoosesTheFormatWhenNoneIsGiven() throws {
        #expect(try spec(#"{"path":"a.png"}"#).format == .png)
        #expect(try spec(#"{"path":"a.JPG"}"#).format == .jpeg)
        #expect(try spec(#"{"path":"a.jpeg"}"#).format == .jpeg)
        #expect(try spec(#"{"path":"a.webp"}"#).format == .webp)
        #expect(try spec(#"{"path":"no-extension"}"#).format == .png)
        #expect(try spec(#"{"path":"a.img","format":"jpeg"}"#).format == .jpeg, "an extension that names no image format")
        #expect(try spec(#"{"path":"a.jpg","format":"jpeg","quality":80,"progressive":true}"#).quality == 80)
    }

    @Test func anExtensionThatNamesAnotherFormatIsRefused() {
        let mismatch = refusal(#"{"path":"a.png","format":"jpeg"}"#)
        #expect(mismatch?.path == "format", "\(String(describing: mismatch))")
        #expect(mismatch?.reason.contains(".png") == true, "\(String(describing: mismatch))")
        let gif = refusal(#"{"path":"x.gif"}"#)
        #expect(gif?.path == "path", "\(String(describing: gif))")
        #expect(gif?.reason.contains("GIF, which the worker writes only as an animation") == true, "\(String(describing: gif))")
        #expect(refusal(#"{"path":"x.heic","format":"png"}"#)?.path == "path")
        let heic = refusal(#"{"path":"x.heic"}"#)
        #expect(heic?.reason.hasPrefix(".heic names HEIF, which the worker does not write;") == true, "\(String(describing: heic))")
        // Before the one extension table, .webm was no image extension here and got PNG bytes.
        let webm = refusal(#"{"path":"x.webm"}"#)
        #expect(webm?.path == "path" && webm?.reason.contains("WebM, which the worker writes only as an animation") == true,
                "\(String(describing: webm))")
        #expect(refusal(#"{"path":"x.tiff"}"#)?.reason.hasPrefix(".tiff names TIFF, which the worker does not write") == true)
    }

    @Test func anOptionTheFormatHasNoUseForIsRefused() {
        let quality = refusal(#"{"path":"a.png","quality":10}"#)
        #expect(quality?.path == "quality", "\(String(describing: quality))")
        #expect(quality?.reason == "applies only to jpeg and webp output; this output is png", "\(String(describing: quality))")
        #expect(refusal(#"{"path":"a.webp","progressive":true}"#)?.path == "progressive")
        #expect(refusal(#"{"path":"a.jpg","compressionLevel":9}"#)?.path == "compressionLevel")
        #expect(refusal(#"{"path":"a.jpg","lossless":true}"#)?.path == "lossless")
        #expect(refusal(#"{"inline":true,"format":"png","quality":50}"#)?.path == "quality")
        #expect(refusal(#"{"path":"a.webp","quality":50,"lossless":false}"#) == nil)
    }

    @Test func anUnknownFormatNamesTheFormatsWritten() {
        let unknown = refusal(#"{"path":"a.png","format":"gif"}"#)
        #expect(unknown?.path == "format")
        #expect(unknown?.reason == #"must be one of "png", "jpeg", "webp"; got "gif" (the worker writes GIF only as an animation: image.animatedSticker)"#,
                "\(String(describing: unknown))")
        let heif = refusal(#"{"path":"a.png","format":"heif"}"#)
        #expect(heif?.reason == #"must be one of "png", "jpeg", "webp"; got "heif" (the worker reads HEIF but does not write it)"#,
                "\(String(describing: heif))")
        let made = refusal(#"{"inline":true,"format":"tiff"}"#)
        #expect(made?.reason == #"must be one of "png", "jpeg", "webp"; got "tiff""#, "\(String(describing: made))")
    }
}
