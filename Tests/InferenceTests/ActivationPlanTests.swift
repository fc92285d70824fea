import Compute
@testable import Inference
import Testing

/// The activation plan: every tensor alive at a step has memory no other tensor alive then uses (an elementwise
/// step may write over the input it is the last reader of, element by element), and the block is as small as the
/// order allows.
@Suite(.timeLimit(.minutes(10)))
struct ActivationPlanTests {
    /// Checks the placement step by step against lifetimes computed here from the plan's order.
    static func overlaps(in plan: ActivationPlan, output: Int) -> [String] {
        var firstWrite = [Int: Int](), lastRead = [Int: Int]()
        for (i, step) in plan.steps.enumerated() {
            firstWrite[step.output] = firstWrite[step.output] ?? i
            // An enlarged input the convolution computes as it reads is a read of its source.
            for t in step.inputs { lastRead[plan.upsampled[t] ?? t] = i }
        }
        lastRead[output] = plan.steps.count
        func range(_ t: Int) -> Range<Int> { plan.offsets[t]!..<plan.offsets[t]! + plan.shapes[t]!.count }
        var problems: [String] = []
        for (i, step) in plan.steps.enumerated() {
            // Alive during step i: written before it (or by it) and read at or after it.
            let alive = Set(lastRead.keys.filter { t in (firstWrite[t] ?? -1) <= i && lastRead[t]! >= i }).union([step.output])
            for a in alive {
                for b in alive where a < b && range(a).overlaps(range(b)) {
                    if let x = plan.overwrites[step.output], Set([a, b]) == Set([x, step.output]), lastRead[x] == i,
                       step.inputs.count(where: { (plan.upsampled[$0] ?? $0) == x }) == 1,
                       plan.offsets[step.output]! - plan.offsets[x]! == Self.allowedShift(of: step, in: plan) { continue }
                    problems.append("step \(i): tensors \(a) and \(b) share memory")
                }
            }
        }
        return problems
    }

    /// Where a step may begin its output relative to an input it writes over: in place for elementwise steps and
    /// residual sums (each element read before it is written), one row before it for a Winograd convolution (whose
    /// bands read the rows above the one they write); nil for the rest.
    static func allowedShift(of step: Network.Step, in plan: ActivationPlan) -> Int? {
        switch step {
        case .relu, .sigmoid, .add, .convAdd: 0
        case .conv(let conv, _, let out):
            plan.shapes[out].flatMap { conv.runsWinograd(onPixels: $0.height * $0.width) ? -$0.width : nil }
        default: nil
        }
    }

    /// The resizes folded into convolutions at 320: the decoders' enlargements read only by Winograd convolutions
    /// (the side outputs' enlargements feed the final 1x1 convolution, which runs as SGEMM, and stay).
    @Test func onlyResizesReadByWinogradConvolutionsAreFolded() throws {
        let network = try Network.u2netp.get()
        #expect(!network.plan.upsampled.isEmpty)
        for (enlarged, source) in network.plan.upsampled {
            let readers = network.plan.steps.filter { $0.inputs.contains(enlarged) }
            #expect(!readers.isEmpty && readers.allSatisfy { step in
                guard let shape = network.plan.shapes[enlarged] else { return false }
                switch step {
                case .conv(let conv, _, _), .convAdd(let conv, _, _, _): return conv.runsWinograd(onPixels: shape.height * shape.width)
                default: return false
                }
            }, "tensor \(enlarged) (from \(source)) is read by \(readers)")
            #expect(network.plan.offsets[enlarged] == nil, "an enlarged tensor has no place in the block")
        }
    }

    @Test(arguments: [320, 256, 96])
    func noTwoLiveActivationsShareMemory(side: Int) throws {
        let network = try Network.u2netp.get().resized(toHeight: side, width: side)
        let problems = Self.overlaps(in: network.plan, output: network.steps.last!.output)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        // Greedy placement reaches the order's own bound on this network.
        #expect(network.plan.floats == network.plan.peakFloats,
                "block \(network.plan.floats) floats, at most \(network.plan.peakFloats) alive at once")
    }

    /// The planned order, with the resizes folded into their convolutions, the residual sums into the convolutions
    /// they add to, and the outer stages' convolutions written over their inputs, needs less than half what the
    /// graph's order did (87.4 MB at 320, releasing each tensor after its last reader; 62.7 MB with the order and
    /// the folded resizes alone).
    @Test func theOrderNeedsLessThanTheGraphsOwn() throws {
        let network = try Network.u2netp.get()
        #expect(network.activationBytes < 38_000_000, "\(network.activationBytes) bytes")
        let sums = network.plan.steps.count { if case .convAdd = $0 { true } else { false } }
        // U²-Netp's residual blocks on maps of 80x80 and more (Winograd): three encoder and three decoder stages.
        #expect(sums == 6, "\(sums) residual sums fused")
        #expect(network.plan.steps.count + network.plan.upsampled.count + sums == network.steps.count,
                "\(network.plan.steps.count) steps, \(network.plan.upsampled.count) resizes folded, of \(network.steps.count)")
    }

    /// A ReLU that is the last reader of its input writes over it; one whose input is read again does not.
    @Test func anElementwiseLastReaderWritesOverItsInput() throws {
        let graph = try NetworkGraphTests.graph("""
            {"op": "relu", "in": 0, "out": 1},
            {"op": "relu", "in": 1, "out": 2},
            {"op": "add", "in": [1, 2], "out": 3}
            """, tensors: 4)
        let network = try Network(graph: graph, weights: [])
        let plan = network.plan
        #expect(plan.offsets[1] == plan.offsets[0], "the first ReLU is the input's last reader: \(plan.offsets)")
        #expect(plan.offsets[2] != plan.offsets[1], "tensor 1 is read again by the add: \(plan.offsets)")
        #expect(plan.offsets[3] == plan.offsets[1], "the add writes over its first input: \(plan.offsets)")
        let out = try network.forward(Tensor(channels: 1, height: 4, width: 4, data: (0..<16).map { Float($0) - 8 }), parallel: InTurnLoop())
        let expected: [Float] = (0..<16).map { (i: Int) -> Float in 2 * max(0, Float(i) - 8) }
        #expect(out.data == expected)
    }
}
