@testable import Compute
import Dispatch
import Synchronization
import Testing

/// ``HandOffLine``, the queue behind `ComputePiece.pipelined`: one helper at a time takes the items in order; at the end
/// the caller processes (or drops) what is left and waits for a helper still taking items, never for one the pool
/// removed unstarted.
@Suite(.timeLimit(.minutes(10)))
struct HandOffLineTests {
    final class Processed: Sendable {
        private let items = Mutex<[Int]>([])
        func add(_ item: Int) { items.withLock { $0.append(item) } }
        var all: [Int] { items.withLock { $0 } }
    }

    @Test("One helper is asked for while one is queued or taking items; it takes every item in order")
    func oneHelperAtATime() {
        let done = Processed()
        let line = HandOffLine<Int>(process: { done.add($0) })
        #expect(line.add(1) != nil, "the first item asks for a helper")
        #expect(line.add(2) == nil && line.add(3) == nil, "a second helper asked for while one is queued")
        line.help()
        #expect(done.all == [1, 2, 3], "\(done.all)")
        #expect(line.add(4) != nil, "a helper that ran out of items is no longer active: the next item asks again")
        // The pool removes that helper before a thread takes it: the caller processes the rest and does not wait.
        #expect(line.close().count == 2, "flags of the helpers submitted")
        line.removed()
        #expect(line.add(5) == nil, "no helper after close")
        line.finish(processingRest: true)
        #expect(done.all == [1, 2, 3, 4, 5], "\(done.all)")
    }

    @Test("Dropped at the end: what no helper took is not processed")
    func droppedAtTheEnd() {
        let done = Processed()
        let line = HandOffLine<Int>(process: { done.add($0) })
        _ = line.add(1)
        _ = line.add(2)
        _ = line.close()
        line.removed()
        line.finish(processingRest: false)
        #expect(done.all.isEmpty, "\(done.all)")
    }

    @Test("The caller's end waits for a helper still taking items, which signals as it leaves")
    func waitsForARunningHelper() async {
        let done = Processed()
        let line = HandOffLine<Int>(process: { done.add($0) })
        _ = line.add(1)
        _ = line.add(2)
        _ = line.close()
        // The helper runs on another thread after the caller has processed the rest: it finds nothing, and its leaving
        // is what lets the caller's finish return.
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            line.finish(processingRest: true)
            finished.signal()
        }
        DispatchQueue.global().async { line.help() }
        let returned = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: finished.wait(timeout: .now() + 60) == .success) }
        }
        #expect(returned, "finish did not return within 60 s of the helper leaving")
        #expect(done.all.sorted() == [1, 2] && done.all.count == 2, "each item once: \(done.all)")
    }
}
