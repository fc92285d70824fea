import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Through the binary: an output whose name, format and options disagree is refused with the field named and
/// nothing written; an enum value the worker does not have is refused with the values it has.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct OutputRequestTests {
    @Test(arguments: [
        (#"{"path":"D/x.gif"}"#, "output.path", ".gif names GIF"),
        (#"{"path":"D/a.png","format":"jpeg"}"#, "output.format", "does not match the path's extension .png"),
        (#"{"path":"D/a.png","quality":10}"#, "output.quality", "applies only to jpeg and webp output"),
        (#"{"path":"D/a.jpg","compressionLevel":9}"#, "output.compressionLevel", "applies only to png output"),
    ])
    func convertRefusesAnOutputOtherThanAsked(_ output: String, _ path: String, _ reason: String) async throws {
        let dir = try Corpus.scratch("output-\(path)")
        let w = try WorkerProcess()
        let params = try JSONParser.parse(Array(#"{"source":{"path":"\#(Corpus.photo("rocket.jpg"))"},"output":\#(output.replacingOccurrences(of: "D/", with: dir + "/"))}"#.utf8))
        let r = try await w.call(1, "image.convert", params)
        #expect(r["error"]?["code"] == -32602, "\(r)")
        #expect(r["error"]?["data"]?["path"] == .string(path), "\(r)")
        #expect(r["error"]?["data"]?["reason"]?.stringValue?.contains(reason) == true, "\(r)")
        #expect(Corpus.files(in: dir).isEmpty, "nothing written: \(Corpus.files(in: dir))")
        #expect(try await w.call(2, "ping")["result"] == [:], "the worker keeps serving")
    }

    @Test(arguments: [
        ("image.thumbnail", #"{"source":{"path":"P"},"size":64,"fit":"fill","output":{"inline":true}}"#, "fit", #""contain", "cover""#),
        ("image.sticker", #"{"source":{"path":"P"},"segmenter":"magic","output":{"inline":true}}"#, "segmenter", #""network""#),
        ("pack.export", #"{"stickers":[{"path":"P"}],"target":"icq","output":{"inline":true}}"#, "target", #""telegram""#),
        ("image.convert", #"{"source":{"path":"P"},"output":{"inline":true,"format":"tiff"}}"#, "output.format", #""png", "jpeg", "webp""#),
    ])
    func anUnknownEnumValueNamesTheAcceptedOnes(_ method: String, _ params: String, _ path: String, _ listed: String) async throws {
        let w = try WorkerProcess()
        let text = params.replacingOccurrences(of: "\"P\"", with: "\"\(Corpus.photo("girl-1.jpg"))\"")
        let r = try await w.call(1, method, try JSONParser.parse(Array(text.utf8)))
        #expect(r["error"]?["code"] == -32602, "\(method): \(r)")
        #expect(r["error"]?["data"]?["path"] == .string(path), "\(method): \(r)")
        let reason = r["error"]?["data"]?["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("must be one of ") && reason.contains(listed), "\(method): \(reason)")
        #expect(!reason.contains("Cannot initialize"), "\(reason)")
    }
}
