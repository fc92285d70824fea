import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

/// `subject` on the sticker methods, through the binary: a point or box that does not fit the photo is -32602
/// naming it, a point or box picks the subject.
@Suite(.timeLimit(TestTiming.minutes(10)))
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
            // The schema's maxItems, with either point or points (the decoder once checked it with points only).
            (["point": [3, 3], "exclude": .array(Array(repeating: [1, 1], count: 257))], "subject.exclude"),
            (["points": [[3, 3]], "exclude": .array(Array(repeating: [1, 1], count: 257))], "subject.exclude"),
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
        // A batch's per-source subject that does not fit its photo is that item's error, at its own path.
        w.request(id + 10, "photos.process", ["sources": [source], "subjects": [["point": [.number("\(width)"), 0]]],
                                              "output": ["dir": .string(dir)]])
        var itemError: JSONValue?
        while let m = try await w.next() {
            if m["params"]?["kind"] == "item" { itemError = m["params"]?["error"] }
            if m["id"]?.intValue == id + 10 { break }
        }
        #expect(itemError?["code"]?.intValue == -32602 && itemError?["data"]?["path"]?.stringValue == "subjects[0].point",
                "\(String(describing: itemError))")
        let pack = try await w.call(id + 2, "pack.export", ["stickers": [source], "subjects": ["all"], "output": ["inline": true]])
        #expect(pack.errorCode == -32602 && Self.path(pack) == "subjects", "\(pack)")
        // The worker goes on serving.
        let fine = try await w.call(id + 3, "image.sticker", ["source": source, "subject": "all", "output": ["inline": true]])
        #expect(fine["result"]?["coverage"]?.doubleValue ?? 0 > 0.01, "\(fine)")
    }

    /// corpus/subjects/pair.jpg: 320x240, one subject in each 160-px half.
    static let pair = Corpus.path("subjects/pair.jpg")

    static func side(of box: JSONValue?) -> String? {
        guard let x = box?["x"]?.intValue, let w = box?["width"]?.intValue else { return nil }
        if x + w <= 164 { return "left" }
        if x >= 156 { return "right" }
        return "both"
    }

    @Test func aPointOrABoxPicksOneOfTwoSubjects() async throws {
        let w = try WorkerProcess()
        let source: JSONValue = ["path": .string(Self.pair)]
        let plain = try await w.call(1, "image.sticker", ["source": source, "output": ["inline": true]])
        // Unprompted, the cut keeps both (so each case below is the prompt's doing).
        #expect(Self.side(of: plain["result"]?["boundingBox"]) == "both", "\(plain)")
        let cases: [(JSONValue, String)] = [
            (["point": [80, 150]], "left"), (["point": [240, 120]], "right"),
            (["box": [0, 0, 160, 240]], "left"), (["box": [160, 0, 320, 240]], "right"),
            // A box under half the photo: the network maps its part as well.
            (["box": [165, 40, 295, 240]], "right"),
            (["points": [[240, 120]], "exclude": [[80, 150]]], "right"),
        ]
        var id = 2
        for (subject, expected) in cases {
            let r = try await w.call(id, "image.sticker", ["source": source, "subject": subject, "output": ["inline": true]])
            #expect(Self.side(of: r["result"]?["boundingBox"]) == expected, "\(subject): \(r)")
            id += 1
        }
        // Without a subject the sticker is the one it was; decontaminate off changes colours, not the box.
        let again = try await w.call(id, "image.sticker", ["source": source, "decontaminate": false, "output": ["inline": true]])
        #expect(again["result"]?["boundingBox"] == plain["result"]?["boundingBox"])
        #expect(again["result"]?["output"]?["data"] != plain["result"]?["output"]?["data"])
    }

    @Test func imageSubjectsFindsBothAndTheirPointsSelectThem() async throws {
        let dir = try Corpus.scratch()
        let w = try WorkerProcess()
        let source: JSONValue = ["path": .string(Self.pair)]
        let r = try await w.call(1, "image.subjects", ["source": source, "stickers": ["dir": .string(dir)]])
        guard case .array(let subjects)? = r["result"]?["subjects"] else {
            Issue.record("no subjects: \(r)")
            return
        }
        let sides = Set(subjects.compactMap { Self.side(of: $0["box"]) })
        #expect(sides.isSuperset(of: ["left", "right"]), "\(r)")
        let areas = subjects.compactMap { $0["area"]?.doubleValue }
        #expect(areas == areas.sorted(by: >), "largest first: \(areas)")
        var id = 2
        for s in subjects {
            guard case .array(let point)? = s["point"], let side = Self.side(of: s["box"]) else { continue }
            let cut = try await w.call(id, "image.sticker", ["source": source, "subject": ["point": .array(point)],
                                                            "output": ["inline": true]])
            id += 1
            if side != "both" { #expect(Self.side(of: cut["result"]?["boundingBox"]) == side, "\(s): \(cut)") }
            let file = try #require(s["sticker"]?["path"]?.stringValue)
            #expect(FileManager.default.fileExists(atPath: file))
        }
        let bad = try await w.call(id, "image.subjects", ["source": source, "max": 0])
        #expect(bad.errorCode == -32602 && Self.path(bad) == "max")
    }

    /// The search's rounds and the subjects' own cuts make `image.subjects` a long request: cancelled in flight, it
    /// answers -32800, writes no sticker file and nothing after its reply.
    @Test func cancellingImageSubjectsWritesNoFile() async throws {
        try await WorkerProcess.untilCancelledInFlight {
            let dir = try Corpus.scratch()
            let w = try WorkerProcess()
            w.request(1, "image.subjects", ["source": ["path": .string(Self.pair)], "stickers": ["dir": .string(dir)]])
            try await w.waitForJobs { !$0.isEmpty }
            let (inFlight, reply, after) = try await w.cancelAcknowledged(1, as: 2)
            guard inFlight else { return false }
            #expect(reply.errorCode == -32800, "\(reply)")
            w.request(3, "ping")
            let (_, beforePing) = try await w.response(3)
            #expect(after.isEmpty && beforePing.isEmpty, "nothing after the final reply: \(after + beforePing)")
            #expect(Corpus.files(in: dir).isEmpty, "\(Corpus.files(in: dir))")
            return true
        }
    }
}
