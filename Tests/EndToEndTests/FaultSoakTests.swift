import Foundation
import Imaging
import JSONRPCTransport
import PhotoWorkerTestSupport
import Synchronization
import Testing

/// The short variant of scripts/soak.py: 5,000 mixed requests, up to 1,000 in flight, 10% cancelled.
/// Every request gets exactly one final reply and nothing about it arrives afterwards.
@Suite(.timeLimit(TestTiming.minutes(10)))
struct FaultSoakTests {
    struct Ledger {
        var finals: [Int: Int] = [:]
        var outcomes: [Int: Int] = [:]   // 0 = result, else the error code
        var lateNotifications: [Int] = []
        var unknownReplies: [JSONValue] = []
        var streamEnded = false
        var answered: Int { finals.count }
    }

    @Test func mixedRequestsWithCancelsGetExactlyOneFinalReplyEach() async throws {
        let total = 5000, maxInFlight = 1000
        let w = try WorkerProcess()
        let ledger = Mutex(Ledger())
        let reader = Task {
            while let m = try await w.next(timeout: .seconds(60)) {
                ledger.withLock { l in
                    if m["method"] != nil {
                        if let id = m["params"]?["id"]?.intValue, l.finals[id] != nil { l.lateNotifications.append(id) }
                    } else if let id = m["id"]?.intValue {
                        l.finals[id, default: 0] += 1
                        l.outcomes[id] = m.errorCode ?? 0
                    } else {
                        l.unknownReplies.append(m)
                    }
                }
            }
            ledger.withLock { $0.streamEnded = true }
        }
        var rng = SplitMix64(seed: 7)
        let small = Corpus.corpusFiles("pngsuite").filter { $0.lastPathComponent.hasPrefix("basn") }.map(\.path)
        try #require(!small.isEmpty)
        var cancels: [Int] = []
        var cancelled: Set<Int> = []
        for id in 1...total {
            while ledger.withLock({ id - 1 - $0.answered }) >= maxInFlight {
                try await Task.sleep(for: .milliseconds(1))
            }
            let source: JSONValue = ["path": .string(small.randomElement(using: &rng)!)]
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<25: w.request(id, "ping")
            case 25..<40: w.request(id, "diagnostics.sleep", ["ms": .int(Int.random(in: 0...50, using: &rng))])
            case 40..<50: w.request(id, "diagnostics.spin", ["ms": .int(Int.random(in: 0...2, using: &rng))])
            case 50..<65: w.request(id, "image.info", ["source": source])
            case 65..<75: w.request(id, "image.thumbnail", ["source": source, "size": 16, "output": ["inline": true]])
            case 75..<82: w.request(id, "diagnostics.fanout", ["children": 3, "ms": .int(Int.random(in: 0...5, using: &rng))])
            case 82..<88: w.request(id, "jobs.list")
            case 88..<93: w.request(id, "no.such.method")
            default: w.request(id, "diagnostics.sleep", ["ms": "soon"])
            }
            if Int.random(in: 0..<10, using: &rng) == 0 { cancels.append(id) }
            while let first = cancels.first, cancels.count > 8 || Bool.random(using: &rng) {
                cancels.removeFirst()
                w.cancel(first)
                cancelled.insert(first)
            }
        }
        for id in cancels { w.cancel(id); cancelled.insert(id) }
        w.request(0, "worker.stats")
        let deadline = ContinuousClock.now + TestTiming.guarded(.seconds(90))
        while ledger.withLock({ $0.finals[0] == nil && !$0.streamEnded }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        // worker.stats is answered at once, so wait for the rest too.
        while ledger.withLock({ $0.answered < total + 1 && !$0.streamEnded }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        w.closeStdin()
        #expect(try await w.waitForExit() == 0)
        _ = try? await reader.value
        let l = ledger.withLock { $0 }
        let missing = (1...total).filter { l.finals[$0] == nil }
        #expect(missing.isEmpty, "\(missing.count) requests without a final reply, first \(missing.prefix(5))")
        #expect(l.finals.values.allSatisfy { $0 == 1 }, "a request got two final replies")
        #expect(l.lateNotifications.isEmpty, "notifications after a final reply: \(l.lateNotifications.prefix(5))")
        #expect(l.unknownReplies.isEmpty, "\(l.unknownReplies.prefix(3))")
        // Only cancelled requests may end -32800, and the cancels did hit some.
        let cancelledReplies = l.outcomes.filter { $0.value == -32800 }.map(\.key)
        #expect(cancelledReplies.allSatisfy { cancelled.contains($0) })
        #expect(!cancelledReplies.isEmpty)
        #expect(Set(l.outcomes.values).isSubset(of: [0, -32800, -32601, -32602]), "\(Set(l.outcomes.values))")
    }
}
