import Foundation
import JSONRPC
import JSONRPCTransport
@testable import PhotoWorker
import Testing

@Suite(.timeLimit(.minutes(10)))
struct ImageSourceTests {
    private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    @Test func decodesEachKind() throws {
        #expect(try decode(ImageSource.self, #"{"path":"/a.jpg"}"#) == .path("/a.jpg"))
        #expect(try decode(ImageSource.self, #"{"data":"AQID"}"#) == .data([1, 2, 3]))
        #expect(try decode(ImageSource.self, #"{"url":"https://example.com/a.png"}"#) == .url(URL(string: "https://example.com/a.png")!))
    }

    @Test(arguments: [#"{}"#, #"{"path":"/a","data":"AQID"}"#, #"{"path":""}"#, #"{"data":"***"}"#, #"{"url":"file:///etc/passwd"}"#, #"{"url":"/relative"}"#])
    func refusesMalformedSources(_ json: String) {
        #expect(throws: DecodingError.self) { try decode(ImageSource.self, json) }
    }

    @Test func outputSpecDefaultsAndValidation() throws {
        let jpg = try decode(OutputSpec.self, #"{"path":"/x/photo.JPG"}"#)
        #expect(jpg.format == .jpeg)
        #expect(jpg.quality == 90)
        #expect(try decode(OutputSpec.self, #"{"inline":true}"#).format == .png)
        #expect(throws: DecodingError.self) { try decode(OutputSpec.self, #"{}"#) }
        #expect(throws: DecodingError.self) { try decode(OutputSpec.self, #"{"path":"/a","inline":true}"#) }
        #expect(throws: DecodingError.self) { try decode(OutputSpec.self, #"{"path":"/a.png","quality":101}"#) }
    }

    @Test func errorsMapToTheirCodesInOnePlace() {
        #expect(WorkerError.sourceUnavailable(source: "s", reason: "r").rpcError.code.rawValue == -32001)
        #expect(WorkerError.invalidImage(source: "s", detail: "d", truncated: false).rpcError.code.rawValue == -32002)
        #expect(WorkerError.tooLarge(source: "s", width: 1, height: 1, limit: 0).rpcError.code.rawValue == -32003)
        #expect(WorkerError.fetchFailed(url: "u", status: 404, reason: "r").rpcError.data?["status"] == 404)
        #expect(WorkerError.outputFailed(path: "p", reason: "r").rpcError.code.rawValue == -32005)
        #expect(RPCError(WorkerError.invalidParameter(path: "a.b", reason: "r")).code == .invalidParams)
    }

    @Test func stemsAreSafeFileNames() {
        #expect(PhotoProcessor.stem(for: .path("/photos/My Cat (1).jpg")) == "My_Cat__1_")
        #expect(PhotoProcessor.stem(for: .data([1])) == "photo")
    }
}
