import Deadlines
import Foundation
import JSONRPC
import JSONRPCTransport
import PhotoWorker
import PhotoWorkerTestSupport
import Testing

/// `image.subjects` in process (the end-to-end suite, SubjectPromptTests, covers it over pipes): the two subjects of
/// corpus/subjects/pair.jpg, each point cutting its own subject, `max` honoured, stickers written as named.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct ImageSubjectsMethodTests {
    static let pair: JSONValue = ["path": .string(Corpus.path("subjects/pair.jpg"))]

    @Test("The pair's two subjects, left and right, each with a point on itself; max 1 keeps the first")
    func listsBothSubjectsOfThePair() async throws {
        let w = try MethodFamilyTests.connect()
        let all = try await w.reply("image.subjects", ["source": Self.pair])
        guard case .array(let subjects)? = all["subjects"] else { Issue.record("no subjects: \(all)"); return }
        #expect(subjects.count == 2, "subjects: \(subjects)")
        #expect(all["segmenter"] == "network" && all["segmenterReason"] == nil, "\(all)")
        for s in subjects {
            guard case .array(let point)? = s["point"], point.count == 2,
                  let x = point[0].intValue, let y = point[1].intValue, let bx = s["box"]?["x"]?.intValue, let by = s["box"]?["y"]?.intValue,
                  let bw = s["box"]?["width"]?.intValue, let bh = s["box"]?["height"]?.intValue else {
                Issue.record("a subject without point or box: \(s)")
                continue
            }
            #expect(x >= bx && x < bx + bw && y >= by && y < by + bh, "point \(x),\(y) outside its box: \(s)")
        }
        let xs = subjects.compactMap { $0["box"]?["x"]?.intValue }.sorted()
        #expect(xs.count == 2 && xs[1] > xs[0] + 50, "the two boxes' left edges: \(xs)")
        let one = try await w.reply("image.subjects", ["source": Self.pair, "max": 1])
        guard case .array(let first)? = one["subjects"] else { Issue.record("no subjects: \(one)"); return }
        #expect(first.count == 1 && first.first?["box"] == subjects.first?["box"], "max 1: \(first), all: \(subjects)")
        #expect(try await Deadline.value(of: Task { await w.close() }, "the server to close", within: .seconds(300)) == 0)
    }

    @Test("Stickers are written as <stem>-subject-<n>.png; an out-of-range max is refused before any work")
    func writesEachSubjectsSticker() async throws {
        let w = try MethodFamilyTests.connect()
        let dir = try Corpus.scratch()
        let r = try await w.reply("image.subjects", ["source": Self.pair, "stickers": ["dir": .string(dir)]])
        guard case .array(let subjects)? = r["subjects"] else { Issue.record("no subjects: \(r)"); return }
        for (i, s) in subjects.enumerated() {
            let path = "\(dir)/pair-subject-\(i + 1).png"
            #expect(s["sticker"]?["path"] == .string(path), "\(s)")
            #expect(FileManager.default.fileExists(atPath: path), "\(path) missing")
        }
        let refused = try await MethodFamilyTests.error { try await w.reply("image.subjects", ["source": Self.pair, "max": 0]) }
        #expect(refused?.code == .invalidParams && refused?.data?["path"] == "max", "\(String(describing: refused))")
        #expect(try await Deadline.value(of: Task { await w.close() }, "the server to close", within: .seconds(300)) == 0)
    }
}
