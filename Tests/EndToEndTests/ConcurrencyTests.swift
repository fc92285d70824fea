import Foundation
import JSONRPCTransport
import PhotoWorkerTestSupport
import Testing

@Suite(.timeLimit(TestTiming.minutes(10)))
struct ConcurrencyTests {
    @Test func thousandConcurrentSleepsAreAllAnswered() async throws {
        let w = try WorkerProcess()
        var lines = ""
        for i in 0..<1000 {
            lines += #"{"jsonrpc":"2.0","id":\#(i),"method":"diagnostics.sleep","params":{"ms":50}}"# + "\n"
        }
        w.sendBytes(Array(lines.utf8))
        var seen = Set<Int>()
        for _ in 0..<1000 {
            let r = try #require(try await w.next())
            #expect(r["result"] == ["slept": 50])
            if let id = r["id"]?.intValue { seen.insert(id) }
        }
        #expect(seen == Set(0..<1000))
    }

    @Test func repliesComeInCompletionOrder() async throws {
        let w = try WorkerProcess()
        w.request(1, "diagnostics.sleep", ["ms": 600_000])
        w.request(2, "diagnostics.sleep", ["ms": 1])
        let first = try #require(try await w.next())
        #expect(first["id"] == 2)
        #expect(first["result"] == ["slept": 1])
        w.cancel(1)
        let second = try #require(try await w.next())
        #expect(second["id"] == 1)
    }

    @Test func cheapMethodsAnswerWhileEveryComputeSlotIsBusy() async throws {
        // Two slots, both spinning: protocol work must not need a compute thread.
        let w = try WorkerProcess(["--max-jobs", "2"])
        w.request(1, "diagnostics.spin", ["ms": 600_000])
        w.request(2, "diagnostics.spin", ["ms": 600_000])
        try await w.waitForJobs { $0.count == 2 }
        for i in 0..<20 {
            #expect(try await w.call(200 + i, "ping")["result"] == [:])
        }
        #expect(try await w.call(300, "worker.stats")["result"]?["running"] == 2)
        w.cancel(1)
        w.cancel(2)
        for _ in 0..<2 { #expect(try await w.next()?["error"]?["code"] == -32800) }
    }

    @Test func cheapMethodsDoNotWaitBehindComputeJobs() async throws {
        let w = try WorkerProcess(["--max-jobs", "1"])
        w.request(1, "diagnostics.spin", ["ms": 600_000])
        w.request(2, "diagnostics.spin", ["ms": 600_000])  // queued behind 1
        let pong = try await w.call(3, "ping")
        #expect(pong["result"] == [:])
        let jobs = try await w.call(4, "jobs.list")
        guard case .array(let list) = jobs["result"]?["jobs"] else {
            Issue.record("no jobs list: \(jobs)")
            return
        }
        let states = Dictionary(list.map { ($0["id"]!.intValue!, $0["state"]!.stringValue!) }, uniquingKeysWith: { a, _ in a })
        #expect(states == [1: "running", 2: "queued"])
        w.cancel(2)
        w.cancel(1)
        let a = try #require(try await w.next())
        let b = try #require(try await w.next())
        #expect(a["error"]?["code"] == -32800)
        #expect(b["error"]?["code"] == -32800)
    }

    @Test func queueOverflowIsAnsweredOverloaded() async throws {
        let w = try WorkerProcess(["--max-jobs", "1", "--max-queue", "2"])
        for i in 1...4 { w.request(i, "diagnostics.spin", ["ms": 600_000]) }
        let r = try #require(try await w.next())
        #expect(r["id"] == 4)
        #expect(r["error"]?["code"] == -32000)
        for i in 1...3 { w.cancel(i) }
        for _ in 1...3 {
            let c = try #require(try await w.next())
            #expect(c["error"]?["code"] == -32800)
        }
    }

    @Test func fanoutItemsArriveBeforeTheFinalReplyAndNeverAfter() async throws {
        let w = try WorkerProcess()
        w.request(1, "diagnostics.fanout", ["children": 20, "ms": 100])
        let (final, before) = try await w.response(1)
        #expect(final["result"] == ["children": 20])
        let items = before.filter { $0["method"] == "$/progress" && $0["params"]?["id"] == 1 }
        #expect(items.count == 20)
        #expect(Set(items.compactMap { $0["params"]?["index"]?.intValue }) == Set(0..<20))
        // Completion order, not start order: the stagger makes them differ.
        #expect(items.compactMap { $0["params"]?["index"]?.intValue } != Array(0..<20))
        // Nothing more for request 1 after its final reply.
        #expect(try await w.call(2, "ping")["result"] == [:])
    }

    /// The peak is the worker's own: Linux carries getrusage's maximum RSS across `execve`, so a worker started by
    /// a large client used to report the client's size.
    @Test func peakRSSIsTheWorkersOwnNotItsParents() async throws {
        let parentBytes = 768 << 20
        var ballast = [UInt8](repeating: 0, count: parentBytes)
        for i in stride(from: 0, to: parentBytes, by: 4096) { ballast[i] = 1 }
        let w = try WorkerProcess()
        let peak = try #require(try await w.call(1, "worker.stats")["result"]?["peakRSSBytes"]?.intValue)
        #expect(peak > 0 && peak < parentBytes / 2, "worker peak RSS \(peak >> 20) MiB, parent \(parentBytes >> 20) MiB")
        withExtendedLifetime(ballast) {}
    }

    /// The worker limits malloc to one arena per two cores before main, so before any thread allocates: a limit
    /// set later (it once was, in the command's `run`) left the arenas the runtime's threads had made by then, each
    /// keeping its high-water mark. glibc maps every arena but the main one as 64 MiB-aligned heaps of 64 MiB,
    /// counted here in the worker's memory map after a sticker, whose passes and stages ran on both compute threads.
    @Test(.disabled(if: WorkerProcess.sanitizer != nil, "a sanitized worker allocates with the sanitizer's allocator, not glibc's arenas"))
    func mallocArenasAreLimitedBeforeAnyThreadStarts() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["MALLOC_ARENA_MAX"] = nil
        let w = try WorkerProcess(environment: environment)
        let dir = try Corpus.scratch()
        for id in 1...3 {
            let r = try await w.call(id, "image.sticker", ["source": ["path": .string(Corpus.photo("girl-1.jpg"))],
                                                           "output": ["path": .string("\(dir)/s.png"), "overwrite": true]])
            #expect(r["result"] != nil, "\(r)")
        }
        let maps = try String(contentsOfFile: "/proc/\(w.process.processIdentifier)/maps", encoding: .utf8)
        // Anonymous mappings by start, merging the read-write part of a heap with the reserved rest after it.
        var regions: [(start: UInt64, end: UInt64)] = []
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 5, let range = fields.first?.split(separator: "-"), range.count == 2,
                  let start = UInt64(range[0], radix: 16), let end = UInt64(range[1], radix: 16) else { continue }
            if let last = regions.last, last.end == start, start % (64 << 20) != 0 {
                regions[regions.count - 1].end = end
            } else {
                regions.append((start, end))
            }
        }
        let heaps = regions.filter { $0.start % (64 << 20) == 0 && $0.end - $0.start == 64 << 20 }.count
        let allowed = max(1, (ProcessInfo.processInfo.activeProcessorCount + 1) / 2) - 1
        #expect(heaps <= allowed, "\(heaps) arena heaps besides the main arena, \(allowed) allowed")
    }

    @Test func statsCountWhatHappened() async throws {
        let w = try WorkerProcess()
        _ = try await w.call(1, "ping")
        _ = try await w.call(2, "nope")
        _ = try await w.call(3, "diagnostics.sleep", ["ms": "bad"])
        let stats = try await w.call(4, "worker.stats")
        let s = try #require(stats["result"])
        #expect(s["received"] == 4)
        #expect(s["completed"] == 1)
        #expect(s["failed"] == 1)  // the invalid params; method-not-found never became a job
        #expect(s["running"] == 0)
        #expect((s["peakRSSBytes"]?.intValue ?? 0) > 0)
    }
}
