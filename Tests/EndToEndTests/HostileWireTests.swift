import Foundation
import Imaging
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

import Glibc

/// Hostile bytes on the wire: every line gets its documented answer and the worker keeps serving.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct HostileWireTests {
    /// Each line is answered -32700 with id null, in order, then a ping is still served.
    private func expectParseErrors(_ w: WorkerProcess, lines: [[UInt8]], pingID: Int,
                                   sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for line in lines { w.send(bytes: line) }
        w.request(pingID, "ping")
        let (reply, before) = try await w.response(pingID)
        #expect(reply["result"] == .object([:]), sourceLocation: sourceLocation)
        #expect(before.count == lines.count, "one reply per bad line", sourceLocation: sourceLocation)
        for m in before {
            #expect(m.errorCode == -32700, "\(m)", sourceLocation: sourceLocation)
            #expect(m["id"] == .null, sourceLocation: sourceLocation)
            #expect(m["error"]?["data"]?["offset"]?.intValue != nil, sourceLocation: sourceLocation)
        }
    }

    @Test func invalidUTF8IsAParseError() async throws {
        let w = try WorkerProcess()
        let prefix = Array(#"{"jsonrpc":"2.0","id":1,"method":""#.utf8)
        let suffix = Array(#""}"#.utf8)
        let bad: [[UInt8]] = [
            [0xFF], [0xC0, 0xAF],                    // invalid lead byte, overlong '/'
            [0xED, 0xA0, 0x80],                      // UTF-16 surrogate encoded in UTF-8
            [0xF4, 0x90, 0x80, 0x80],                // above U+10FFFF
            [0xE2, 0x82],                            // truncated sequence
            [0x80],                                  // lone continuation byte
        ]
        var lines = bad.map { prefix + $0 + suffix }
        lines.append([0xFE, 0xFF] + Array(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.utf8))  // UTF-16 BOM
        lines.append([0xEF, 0xBB, 0xBF] + Array(#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#.utf8))  // UTF-8 BOM
        lines.append(Array(#"{"jsonrpc":"2.0","id":4,"method":"ping","params":{"k\#u{0}":1}}"#.utf8))  // raw NUL
        try await expectParseErrors(w, lines: lines, pingID: 10)
    }

    @Test func deepNestingIsRefusedWithoutOverflowingTheStack() async throws {
        let w = try WorkerProcess()
        let depth = 100_000
        let arrays = [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth)
        let objects = Array(String(repeating: #"{"a":"#, count: depth).utf8) + [0x31] + [UInt8](repeating: UInt8(ascii: "}"), count: depth)
        let inParams = Array(#"{"jsonrpc":"2.0","id":5,"method":"ping","params":"#.utf8) + arrays + [UInt8(ascii: "}")]
        let unclosed = [UInt8](repeating: UInt8(ascii: "["), count: depth)
        try await expectParseErrors(w, lines: [arrays, objects, inParams, unclosed], pingID: 10)

        // Deep but under the parser's limit: the typed decoder must cope too (-32602, not a crash).
        let nested = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        w.send(raw: #"{"jsonrpc":"2.0","id":11,"method":"image.info","params":{"source":"# + nested + "}}")
        #expect(try await w.response(11).response.errorCode == -32602)
        w.send(raw: #"{"jsonrpc":"2.0","id":12,"method":"ping","params":{"x":"# + nested + "}}")
        #expect(try await w.response(12).response["result"] == .object([:]))
        try await w.expectServing()
    }

    @Test func hugeNumbersAreEchoedAsIDsAndRefusedAsParameters() async throws {
        let w = try WorkerProcess()
        let longDigits = String(repeating: "9", count: 100_000)
        // As ids, numbers are echoed exactly as written.
        for literal in ["1e400", "-1e-400", "123456789012345678901234567890", longDigits, "1.5E+308", "-0"] {
            w.send(raw: #"{"jsonrpc":"2.0","id":"# + literal + #","method":"ping"}"#)
            let raw = try #require(try await w.nextRawLine())
            #expect(raw == #"{"jsonrpc":"2.0","id":"# + literal + #","result":{}}"#, "id \(literal.prefix(40))")
        }
        // As integer parameters they are invalid params, never a trap or a silent wrap-around.
        var id = 100
        for literal in ["1e400", "99999999999999999999", "-9223372036854775809", longDigits, "1.5", "1e3000"] {
            id += 1
            w.send(raw: #"{"jsonrpc":"2.0","id":\#(id),"method":"diagnostics.sleep","params":{"ms":"# + literal + "}}")
            let reply = try await w.response(id).response
            #expect(reply.errorCode == -32602, "ms \(literal.prefix(40)): \(reply)")
            #expect(reply["error"]?["data"]?["path"] == "ms", "the error names the parameter")
        }
        for literal in ["1e400", "-1e400", "1e-400", "0"] {
            id += 1
            w.send(raw: #"{"jsonrpc":"2.0","id":\#(id),"method":"image.scale","params":{"source":{"path":"/nonexistent.png"},"factor":"# + literal + #","output":{"inline":true}}}"#)
            let reply = try await w.response(id).response
            #expect(reply.errorCode == -32602, "factor \(literal): \(reply)")
            #expect(reply["error"]?["data"]?["path"] == "factor", "the error names the parameter")
        }
        try await w.expectServing()
    }

    @Test func duplicateKeysLastOneWins() async throws {
        let w = try WorkerProcess()
        w.send(raw: #"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#)
        #expect(try await w.next() == ["jsonrpc": "2.0", "id": 2, "result": [:]])
        w.send(raw: #"{"jsonrpc":"2.0","id":3,"method":"no.such","method":"ping"}"#)
        #expect(try await w.next() == ["jsonrpc": "2.0", "id": 3, "result": [:]])
        w.send(raw: #"{"jsonrpc":"2.0","id":4,"method":"diagnostics.sleep","params":{"ms":1,"ms":"x"}}"#)
        #expect(try await w.next()?.errorCode == -32602)
        w.send(raw: #"{"jsonrpc":"1.0","id":5,"method":"ping","jsonrpc":"2.0"}"#)
        #expect(try await w.next() == ["jsonrpc": "2.0", "id": 5, "result": [:]])
        w.send(raw: #"{"jsonrpc":"2.0","id":6,"method":"ping","jsonrpc":"1.0"}"#)
        let refused = try #require(try await w.next())
        #expect(refused.errorCode == -32600 && refused["id"] == 6)
        try await w.expectServing()
    }

    @Test func idsOfEveryJSONType() async throws {
        let w = try WorkerProcess()
        // Strings and numbers are ids, echoed byte for byte.
        let accepted = [#""""#, #""a b""#, #""\u00e9\ud83d\ude00""#, #""\"\\\/\n""#, "0", "-1", "3.25", "1E+2", "9007199254740993"]
        for literal in accepted {
            w.send(raw: #"{"jsonrpc":"2.0","id":"# + literal + #","method":"ping"}"#)
            let raw = try #require(try await w.nextRawLine())
            let echoed = try #require(try JSONParser.parse(raw)["id"])
            #expect(echoed == (try JSONParser.parse(literal)), "id \(literal) came back as \(raw)")
            #expect(raw.contains(#""result":{}"#))
        }
        // null, booleans, arrays and objects are not ids: -32600 with id null.
        for literal in ["null", "true", "false", "[]", "[1]", "{}", #"{"id":1}"#] {
            w.send(raw: #"{"jsonrpc":"2.0","id":"# + literal + #","method":"ping"}"#)
            let reply = try #require(try await w.next())
            #expect(reply.errorCode == -32600, "id \(literal): \(reply)")
            #expect(reply["id"] == .null)
        }
        try await w.expectServing()
    }

    /// 1 GiB in one line, streamed in 1 MiB chunks: discarded with -32700 at its newline, never held
    /// in memory (the worker's peak RSS stays far below the line), and the next request is served.
    @Test func oneGiBLineIsDiscarded() async throws {
        let w = try WorkerProcess()
        let total = 1 << 30
        let sender = Thread {
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
            let prefix = Array(#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":""#.utf8)
            w.sendBytes(prefix)
            var sent = prefix.count
            while sent + chunk.count <= total {
                w.sendBytes(chunk)
                sent += chunk.count
            }
            w.sendBytes([UInt8](repeating: UInt8(ascii: "a"), count: total - sent) + [0x0A])
            w.request(2, "worker.stats")
        }
        sender.start()
        let (stats, before) = try await w.response(2, timeout: .seconds(90))
        #expect(before.count == 1)
        let discarded = try #require(before.first)
        #expect(discarded.errorCode == -32700 && discarded["id"] == .null)
        #expect(discarded["error"]?["data"]?["length"]?.intValue == total)
        #expect(discarded["error"]?["data"]?["limit"]?.intValue == 64 << 20)
        let peak = try #require(stats["result"]?["peakRSSBytes"]?.intValue)
        #expect(peak < 512 << 20, "peak RSS \(peak >> 20) MiB while discarding a 1 GiB line")
        try await w.expectServing()
    }

    @Test func finalLineWithoutNewlineAtEOF() async throws {
        let w = try WorkerProcess()
        w.sendBytes(Array(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.utf8) + [0x0A] + Array(#"{"jsonrpc":"2.0","id":2,"met"#.utf8))
        w.closeStdin()
        let all = try await w.drain()
        // Replies to requests come from their tasks, parse errors inline: the order is not fixed.
        #expect(all.count == 2)
        #expect(all.contains(["jsonrpc": "2.0", "id": 1, "result": [:]]))
        #expect(all.contains { $0.errorCode == -32700 && $0["id"] == .null })
        #expect(try await w.waitForExit() == 0)
    }

    /// Random lines (no newline inside, not blank): each gets exactly one error with id null.
    @Test func randomBytes() async throws {
        let w = try WorkerProcess()
        var rng = SplitMix64(seed: 0x5EED_0007)
        var lines: [[UInt8]] = []
        while lines.count < 300 {
            let length = Int.random(in: 1...400, using: &rng)
            var line = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }.filter { $0 != 0x0A }
            if line.last == 0x0D { line.removeLast() }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            lines.append(line)
        }
        // A random byte stream split at random points must frame the same way.
        var stream: [UInt8] = []
        for line in lines { stream += line + [0x0A] }
        var offset = 0
        while offset < stream.count {
            let n = min(stream.count - offset, Int.random(in: 1...5000, using: &rng))
            w.sendBytes(Array(stream[offset..<offset + n]))
            offset += n
        }
        w.request(1, "ping")
        let (reply, before) = try await w.response(1)
        #expect(reply["result"] == .object([:]))
        #expect(before.count == lines.count)
        #expect(before.allSatisfy { [-32700, -32600].contains($0.errorCode) && $0["id"] == .null })
    }
}
