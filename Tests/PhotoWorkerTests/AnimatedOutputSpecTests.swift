import Foundation
import JSONRPCTransport
import Imaging
@testable import PhotoWorker
import Testing

/// An animated output reads the same extension table as a still one (``ImageFormat``): `.png` is APNG here, a
/// still format's extension is refused, and `format` takes only the formats written as animations.
@Suite(.timeLimit(.minutes(10)))
struct AnimatedOutputSpecTests {
    private func spec(_ json: String) throws -> AnimatedOutputSpec {
        try JSONValueDecoder().decode(AnimatedOutputSpec.self, from: try JSONParser.parse(Array(json.utf8)))
    }

    @Test func theExtensionNamesTheAnimationFormat() throws {
        #expect(try spec(#"{"path":"a.png"}"#).format == .apng)
        #expect(try spec(#"{"path":"a.APNG"}"#).format == .apng)
        #expect(try spec(#"{"path":"a.gif"}"#).format == .gif)
        #expect(try spec(#"{"path":"a.webp"}"#).format == .webp)
        #expect(try spec(#"{"path":"a.webm"}"#).format == .webm)
        #expect(try spec(#"{"path":"a.jpg"}"#).format == nil, "left to the method, which refuses it at output.path")
        #expect(try spec(#"{"path":"no-extension"}"#).format == nil)
    }

    @Test func aStillFormatsExtensionIsRefused() {
        for (path, name) in [("a.jpg", "JPEG"), ("a.heic", "HEIF"), ("a.avif", "AVIF"), ("a.tif", "TIFF")] {
            do {
                _ = try AnimatedOutputSpec.format(namedBy: path, at: "output.path")
                Issue.record("\(path) was taken")
            } catch {
                let rpc = RPCError(error)
                #expect(rpc.data?["path"]?.stringValue == "output.path")
                #expect(rpc.data?["reason"]?.stringValue?.hasPrefix(".\((path as NSString).pathExtension) names \(name), a still image") == true,
                        "\(String(describing: rpc.data))")
            }
        }
    }

    @Test func theRefusalNamesTheAnimatedExtensionsFromTheTable() {
        #expect(AnimatedOutputSpec.animatedExtensions == ".png (APNG), .webp, .gif or .webm", "\(AnimatedOutputSpec.animatedExtensions)")
    }

    @Test func aFormatNotWrittenAsAnAnimationIsRefusedWithTheList() {
        for given in ["jpeg", "png", "heif", "mp4"] {
            do {
                _ = try spec(#"{"path":"a.webp","format":"\#(given)"}"#)
                Issue.record("\(given) was taken")
            } catch {
                let rpc = RPCError(error)
                #expect(rpc.data?["path"]?.stringValue == "format", "\(String(describing: rpc.data))")
                #expect(rpc.data?["reason"]?.stringValue == #"must be one of "apng", "webp", "gif", "webm"; got "\#(given)""#,
                        "\(String(describing: rpc.data))")
            }
        }
    }
}
