import Compute
import Dispatch
import Foundation
@testable import Inference
import Synchronization
import Testing

/// Convolutions whose output shares memory with what they read (the activation plan's residual sums and writes
/// one row above an input) compute the same floats as the same layers each into memory of its own, on one thread
/// and with bands spread over several.
@Suite(.timeLimit(.minutes(10)))
struct SharedOutputTests {
    /// A loop that runs indices on `width` threads, each taking the next index as it is free.
    struct ThreadLoop: ParallelLoop {
        let width: Int
        var isCancelled: Bool { false }
        func forEach(_ count: Int, _ body: @escaping @Sendable (Int, Int) throws -> Void) throws {
            let next = Atomic<Int>(0)
            let failure = Mutex<(any Error)?>(nil)
            DispatchQueue.concurrentPerform(iterations: width) { thread in
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < count, failure.withLock({ $0 == nil }) else { return }
                    do { try body(thread, index) } catch { failure.withLock { $0 = $0 ?? error } }
                }
            }
            if let error = failure.withLock({ $0 }) { throw error }
        }
    }

    /// A loop of `width` threads' scratch that runs the indices one after the other, last first: chunks of bands
    /// then run in the order that finds every row the next chunk overwrites already overwritten.
    struct BackwardLoop: ParallelLoop {
        let width: Int
        var isCancelled: Bool { false }
        func forEach(_ count: Int, _ body: @escaping @Sendable (Int, Int) throws -> Void) throws {
            for index in (0..<count).reversed() { try body(index % width, index) }
        }
    }

    static let channels = 16, height = 300, width = 301

    /// t1 = conv(t0); t2 = conv(t1); t3 = conv(t2), one row above t2; t5 = conv(t3) + t1 over t1 (t4, the
    /// convolution's result, never stored); t6 = conv(t5), one row above t5.
    static func network() throws -> (Network, [Float]) {
        let c = channels
        var ops: [String] = []
        var offset = 0
        func conv(_ input: Int, _ output: Int, cin: Int, relu: Bool) {
            ops.append(#"{"op": "conv", "in": \#(input), "out": \#(output), "cin": \#(cin), "cout": \#(c), "k": 3, "#
                       + #""weights": \#(offset), "bias": \#(offset + c * cin * 9), "relu": \#(relu)}"#)
            offset += c * cin * 9 + c
        }
        conv(0, 1, cin: 3, relu: true)
        conv(1, 2, cin: c, relu: true)
        conv(2, 3, cin: c, relu: true)
        conv(3, 4, cin: c, relu: false)
        ops.append(#"{"op": "add", "in": [4, 1], "out": 5}"#)
        conv(5, 6, cin: c, relu: true)
        let json = """
            {"name": "t", "input": {"tensor": 0, "channels": 3, "height": \(height), "width": \(width)}, "output": 6,
             "tensors": 7, "parameters": \(offset), "ops": [\(ops.joined(separator: ","))]}
            """
        let graph = try JSONDecoder().decode(NetworkGraph.self, from: Data(json.utf8))
        let weights = ConvolutionTests.values(offset, seed: 5).map { $0 * 0.3 }
        return (try Network(graph: graph, weights: weights), weights)
    }

    /// The same layers, each into a tensor of its own (``Convolution/apply(_:workspace:parallel:)``).
    static func separately(_ network: Network, _ input: Tensor) throws -> [Float] {
        var workspace = ConvolutionWorkspace()
        var convs: [Int: Convolution] = [:]
        for step in network.steps { if case .conv(let conv, _, let out) = step { convs[out] = conv } }
        #expect(convs.count == 5)
        let t1 = try convs[1]!.apply([input], workspace: &workspace, on: .inTurn)
        let t2 = try convs[2]!.apply([t1], workspace: &workspace, on: .inTurn)
        let t3 = try convs[3]!.apply([t2], workspace: &workspace, on: .inTurn)
        let t4 = try convs[4]!.apply([t3], workspace: &workspace, on: .inTurn)
        let t5 = Tensor(channels: t1.channels, height: t1.height, width: t1.width, data: zip(t4.data, t1.data).map { $0 + $1 })
        return try convs[6]!.apply([t5], workspace: &workspace, on: .inTurn).data
    }

    @Test func thePlanSharesTheOutputs() throws {
        let (network, _) = try Self.network()
        let plan = network.plan
        #expect(plan.overwrites == [3: 2, 5: 1, 6: 5], "\(plan.overwrites)")
        #expect(plan.steps.contains { if case .convAdd(_, [3], 1, 5) = $0 { true } else { false } }, "\(plan.steps)")
        #expect(plan.offsets[4] == nil && plan.offsets[5] == plan.offsets[1] && plan.offsets[6] == plan.offsets[5]! - Self.width
                && plan.offsets[3] == plan.offsets[2]! - Self.width, "\(plan.offsets)")
        // Two maps alive at most (t1 and t2; the input, freed by the first convolution, fits where t2 will be), and
        // a row before each for the outputs written over them.
        let map = Self.channels * Self.height * Self.width
        #expect(plan.floats == 2 * map + 2 * Self.width,
                "\(plan.floats) floats, maps of \(map)")
    }

    /// On the calling thread alone, backwards on two threads' scratch, on two and three threads.
    @Test(arguments: [0, -2, 2, 3])
    func sharedOutputsComputeWhatSeparateOnesDo(threads: Int) throws {
        let (network, _) = try Self.network()
        let input = Tensor(channels: 3, height: Self.height, width: Self.width,
                           data: ConvolutionTests.values(3 * Self.height * Self.width, seed: 9))
        let expected = try Self.separately(network, input)
        let loop: any ParallelLoop = switch threads {
        case 0: InTurnLoop()
        case ..<0: BackwardLoop(width: -threads)
        default: ThreadLoop(width: threads)
        }
        let out = try network.forward(input, parallel: loop)
        let differing = zip(out.data, expected).count { $0.bitPattern != $1.bitPattern }
        #expect(differing == 0, "\(differing) of \(expected.count) outputs differ, by up to \(ConvolutionTests.worstDifference(out.data, expected))")
    }
}
