@testable import JSONRPCTransport
import Testing

@Suite(.timeLimit(.minutes(10)))
struct ContentLengthFramerTests {
    private func frame(_ chunks: [[UInt8]], max: Int = 100) -> [FrameEvent] {
        var framer = ContentLengthFramer(maxMessageBytes: max)
        var events: [FrameEvent] = []
        for c in chunks { c.withUnsafeBytes { framer.feed($0) { events.append($0) } } }
        framer.finish { events.append($0) }
        return events
    }

    private func frame(_ text: String, max: Int = 100) -> [FrameEvent] { frame([Array(text.utf8)], max: max) }

    private func message(_ body: String) -> String { "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" }

    private func line(_ s: String) -> FrameEvent { .message(Array(s.utf8)) }

    private func reason(_ event: FrameEvent?) -> String? {
        if case .malformed(let r)? = event { return r }
        return nil
    }

    @Test func bodiesFollowTheirHeadersWithoutDelimiters() {
        let stream = message(#"{"a":1}"#) + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
            + message("[2]") + message("{}")
        #expect(frame(stream) == [line(#"{"a":1}"#), line("[2]"), line("{}")])
    }

    @Test func framingDoesNotDependOnReadBoundaries() {
        let stream = Array((message(#"{"a":"x\r\n\r\ny"}"#) + "\r\n" + message("[1,2,3]") + "content-length: 2\n\n{}").utf8)
        let whole = frame([stream])
        #expect(whole.count == 3)
        for size in 1...stream.count {
            let chunks = stride(from: 0, to: stream.count, by: size).map { Array(stream[$0..<min($0 + size, stream.count)]) }
            #expect(frame(chunks) == whole, "read size \(size)")
        }
    }

    @Test func headerNamesAreCaseInsensitiveAndBareLineFeedsAreAccepted() {
        #expect(frame("CONTENT-LENGTH: 2\r\n\r\n{}content-length:2\n\n[]") == [line("{}"), line("[]")])
    }

    @Test("each malformed header block gets its reason, then the next message is read",
          arguments: [
            ("Content-Type: text/plain\r\n\r\n", "no Content-Length"),
            ("Content-Length: -5\r\n\r\n", "non-negative decimal integer"),
            ("Content-Length: abc\r\n\r\n", "non-negative decimal integer"),
            ("Content-Length: 1e3\r\n\r\n", "non-negative decimal integer"),
            ("Content-Length: \r\n\r\n", "non-negative decimal integer"),
            ("Content-Length: 99999999999999999999999\r\n\r\n", "too large"),
            ("Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "given twice"),
            ("Content-Length: 3\r\nContent-Length: 4\r\n\r\n", "different values (3 and 4)"),
            ("Content-Length 2\r\n\r\n", "no colon"),
          ])
    func malformedHeaders(_ bad: String, _ expected: String) {
        let events = frame(bad + message("[7]"))
        #expect(reason(events.first)?.contains(expected) == true, "\(events)")
        #expect(events.last == line("[7]"), "resynchronised on the next header: \(events)")
        #expect(events.count == 2, "\(events)")
    }

    @Test func aBodyOverTheLimitIsReportedAndSkippedAsItStreamsPast() {
        let big = String(repeating: "x", count: 1000)
        let chunks = Array((message(big) + message("[1]")).utf8).chunked(37)
        #expect(frame(chunks, max: 100) == [.overlong(byteCount: 1000), line("[1]")])
    }

    @Test func anEndlessHeaderBlockIsCutAtItsLimit() {
        let endless = "X-Filler: " + String(repeating: "y", count: ContentLengthFramer.maxHeaderBytes) + "\r\n"
        let events = frame(endless + message("[3]"))
        #expect(reason(events.first)?.contains("exceeds") == true, "\(events)")
        #expect(events.last == line("[3]"))
    }

    @Test func inputEndingInsideAMessageIsReported() {
        #expect(reason(frame("Content-Length: 10\r\n\r\n{\"a\"").first)?.contains("6 bytes short of the 10") == true)
        #expect(reason(frame("Content-Length: 10\r\n").first)?.contains("inside a header block") == true)
        #expect(frame(message("{}") + "\r\n\r\n").count == 1, "blank lines after the last message end cleanly")
    }

    @Test func anEmptyBodyIsAnEmptyMessage() {
        #expect(frame("Content-Length: 0\r\n\r\n" + message("[]")) == [.message([]), line("[]")])
    }
}

@Suite(.timeLimit(.minutes(10)))
struct InputFramerTests {
    private func frame(_ text: String, framing: MessageFraming? = nil) -> (MessageFraming?, [FrameEvent]) {
        let whole = frame([Array(text.utf8)], framing: framing)
        // Fed a byte at a time, detection and framing come out the same.
        let bytes = Array(text.utf8)
        #expect(frame(bytes.map { [$0] }, framing: framing) == whole, "byte by byte: \(text.prefix(30))")
        return whole
    }

    private func frame(_ chunks: [[UInt8]], framing: MessageFraming?) -> (MessageFraming?, [FrameEvent]) {
        var framer = InputFramer(framing: framing, maxMessageBytes: 100)
        var events: [FrameEvent] = []
        for c in chunks { c.withUnsafeBytes { framer.feed($0) { events.append($0) } } }
        let detected = framer.framing
        framer.finish { events.append($0) }
        return (detected ?? framer.framing, events)
    }

    @Test func detectsTheFramingFromTheFirstByteThatIsNotWhiteSpace() {
        #expect(frame(" \n{\"a\":1}\n[1]\n") == (.ndjson, [.message(Array(#"{"a":1}"#.utf8)), .message(Array("[1]".utf8))]))
        #expect(frame("\r\nContent-Length: 2\r\n\r\n{}") == (.contentLength, [.message(Array("{}".utf8))]))
        #expect(frame("Content-Type: application/vscode-jsonrpc\r\nContent-Length: 2\r\n\r\n{}")
                == (.contentLength, [.message(Array("{}".utf8))]), "any header may come first")
        #expect(frame("garbage\n").0 == .ndjson, "anything else is NDJSON, where it gets its parse error")
        #expect(frame("not json: but a line\n").0 == .ndjson, "a name must be a token")
        #expect(frame("  \n").0 == nil, "white space alone decides nothing")
    }

    @Test func aForcedFramingIsNotDetected() {
        let (framing, events) = frame(#"{"a":1}"# + "\n", framing: .contentLength)
        #expect(framing == .contentLength)
        if case .malformed(let r)? = events.first { #expect(r.contains("no colon") || r.contains("header")) } else {
            Issue.record("expected a malformed header, got \(events)")
        }
    }
}

extension Array {
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
