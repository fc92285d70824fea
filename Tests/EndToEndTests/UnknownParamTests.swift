import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// Names an image method does not take are refused, at any depth, with the name in `data.path`.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct UnknownParamTests {
    @Test(arguments: [
        ("image.sticker", #"{"source":{"path":"P"},"segmentor":"classical","output":{"inline":true}}"#, "segmentor"),
        ("image.thumbnail", #"{"source":{"path":"P"},"size":32,"output":{"inline":true,"qualty":3}}"#, "output.qualty"),
        ("photos.process", #"{"sources":[{"path":"P","x":1}],"output":{"dir":"/tmp"}}"#, "sources[0].x"),
        ("image.effect", #"{"source":{"path":"P"},"effects":[{"blurr":2}],"output":{"inline":true}}"#, "effects[0].blurr"),
    ])
    func unknownNamesAreRefused(_ method: String, _ params: String, _ path: String) async throws {
        let w = try WorkerProcess()
        let text = params.replacingOccurrences(of: "\"P\"", with: "\"\(Corpus.photo("girl-1.jpg"))\"")
        let value = try JSONParser.parse(Array(text.utf8))
        let r = try await w.call(1, method, value)
        #expect(r["error"]?["code"] == -32602, "\(method): \(r)")
        #expect(r["error"]?["data"]?["path"] == .string(path), "\(method): \(r)")
        #expect(r["error"]?["data"]?["reason"]?.stringValue?.hasPrefix("unknown parameter") == true, "\(r)")
    }

    @Test func builtInsStillAcceptWhatLSPAndMCPClientsSend() async throws {
        let w = try WorkerProcess()
        let r = try await w.call(1, "initialize", ["processId": 1, "capabilities": [:], "clientInfo": ["name": "x"], "rootUri": .null])
        #expect(r["result"] != nil, "\(r)")
    }
}
