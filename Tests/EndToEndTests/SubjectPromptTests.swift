import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// `subject` on the sticker methods, through the binary: a point or box that does not fit the photo is -32602
/// naming it, a point or box picks the subject.
@Suite(.timeLimit(TestTiming.minutes(3)))
struct SubjectPromptTests {
    static let photo = Corpus.photo("animal-2.jpg")

    static func path(_ r: JSONValue) -> String? { r["error"]?["data"]?["path"]?.stringValue }

    @Test func promptsThatDoNotFitThePhotoAreInvalidParamsNamingThem() async throws {
        let w = try WorkerProcess()
        let source: JSONValue = ["path": .string(Self.photo)]
        let info = try await w.call(1, "image.info", ["source": source])
        let width = try #require(info["result"]?["width"]?.intValue), height = try #require(info["result"]?["height"]?.intValue)
        let cases: [(JSONValue, String)] = [
            (["point": [.number("\(width)"), 3]], "subject.point"),
            (["point": [-1, 3]], "subject.point"),
            (["points": [[3, 3], [3, .number("\(height)")]]], "subject.points[1]"),
            (["point": [3, 3], "exclude": [[.number("\(width + 5)"), 0]]], "subject.exclude[0]"),
            (["box": [10, 10, 10, 40]], "subject.box"),
            (["box": [10, 40, 50, 20]], "subject.box"),
            (["box": [.number("\(width)"), 0, .number("\(width + 20)"), 20]], "subject.box"),
            (["point": [3]], "subject.point"),
            (["box": [1, 2, 3]], "subject.box"),
            (["point": [3, 3], "box": [0, 0, 9, 9]], "subject"),
            ("everything", "subject"),
        ]
        var id = 2
        for (subject, expected) in cases {
            let r = try await w.call(id, "image.sticker", ["source": source, "subject": subject, "output": ["inline": true]])
            #expect(r.errorCode == -32602 && Self.path(r) == expected, "\(subject): \(r)")
            id += 1
        }
        let dir = try Corpus.scratch()
        let processed = try await w.call(id, "photo.process", ["source": source, "subject": ["point": [-5, 0]],
                                                                "output": ["dir": .string(dir)]])
        #expect(processed.errorCode == -32602 && Self.path(processed) == "subject.point", "\(processed)")
        let batch = try await w.call(id + 1, "photos.process", ["sources": [source, source], "subjects": [.null],
                                                                 "output": ["dir": .string(dir)]])
        #expect(batch.errorCode == -32602 && Self.path(batch) == "subjects", "\(batch)")
        let pack = try await w.call(id + 2, "pack.export", ["stickers": [source], "subjects": ["all"], "output": ["inline": true]])
        #expect(pack.errorCode == -32602 && Self.path(pack) == "subjects", "\(pack)")
        // The worker goes on serving.
        let fine = try await w.call(id + 3, "image.sticker", ["source": source, "subject": "all", "output": ["inline": true]])
        #expect(fine["result"]?["coverage"]?.doubleValue ?? 0 > 0.01, "\(fine)")
    }
}
