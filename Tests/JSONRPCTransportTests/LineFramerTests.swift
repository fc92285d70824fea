@testable import JSONRPCTransport
import Testing

@Suite(.timeLimit(.minutes(10)))
struct LineFramerTests {
    private func frame(_ chunks: [String], max: Int = 100) -> [FrameEvent] {
        var framer = LineFramer(maxLineBytes: max)
        var events: [FrameEvent] = []
        for c in chunks {
            Array(c.utf8).withUnsafeBytes { framer.feed($0) { events.append($0) } }
        }
        framer.finish { events.append($0) }
        return events
    }

    @Test func splitsOnNewlinesAcrossChunks() {
        #expect(frame(["ab", "c\nde", "f\n"]) == [.message(Array("abc".utf8)), .message(Array("def".utf8))])
    }

    @Test func stripsCarriageReturnAndSkipsBlankLines() {
        #expect(frame(["a\r\n\r\n  \n\n", "b\n"]) == [.message(Array("a".utf8)), .message(Array("b".utf8))])
    }

    @Test func overlongLinesAreDiscardedToTheirNewline() {
        let long = String(repeating: "x", count: 250)
        #expect(frame(["ok\n", long.prefix(120) + "", long.dropFirst(120) + "\nnext\n"], max: 100)
            == [.message(Array("ok".utf8)), .overlong(byteCount: 250), .message(Array("next".utf8))])
    }

    @Test func aLineOfExactlyTheLimitIsKept() {
        let line = String(repeating: "y", count: 100)
        #expect(frame([line + "\n"], max: 100) == [.message(Array(line.utf8))])
    }

    @Test func finalLineWithoutNewline() {
        #expect(frame(["a\nb"]) == [.message(Array("a".utf8)), .message(Array("b".utf8))])
        #expect(frame([String(repeating: "z", count: 150)], max: 100) == [.overlong(byteCount: 150)])
    }
}
