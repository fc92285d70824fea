/// The order a forward pass runs its steps in, and where each activation lives in the pass's one block of memory:
/// computed once per network size (every shape is fixed), so a pass makes a single allocation of a size known in
/// advance and hands it back whole when it ends.
///
/// Why not an allocation per layer output: malloc kept the freed outputs of earlier passes in each thread's arena
/// (its mmap threshold rises to their size), so a worker's memory grew with its history, and two passes at once
/// held far more than their live activations.
///
/// A resize read only by Winograd convolutions is never stored: they enlarge its input row by row as they read it
/// (at 320x320, U²-Netp's last decoder stage reads a 64-channel 160x160 map enlarged to 320x320, 26 MB).
///
/// A residual connection (a Winograd convolution whose only reader is an addition) is one step that adds the
/// result to the residual where it lies. A Winograd convolution that is the last reader of a stored input of its
/// output's shape writes its output one row before that input, over it (``WinogradKernel/Overlap``): at 320x320 the
/// 64-channel maps of U²-Netp's outer stages, 26 MB each, are then never two at once where a convolution reads one
/// and writes the next.
///
/// The order: among the steps whose inputs are ready, the one that adds the least memory (its output, less the
/// inputs it is the last reader of) runs first, the graph's own order breaking ties; the graph's order is kept
/// when that is no better. The placement: a step that may write over an input it is the last reader of
/// (``overwrite(by:shapes:upsampled:output:isFreed:)``) does; every other tensor gets an offset by size, largest
/// first, at the lowest address no tensor alive at the same time uses (greedy by size, as TensorFlow Lite's arena
/// planner does).
struct ActivationPlan: Sendable {
    /// The network's steps in the order they run.
    let steps: [Network.Step]
    /// Each tensor's shape, by tensor number (nil for tensors no step computes or reads).
    let shapes: [TensorShape?]
    /// Each tensor's place in the block, in floats from its start.
    let offsets: [Int?]
    /// The resizes folded into the convolutions that read them: enlarged tensor -> the tensor it enlarges.
    let upsampled: [Int: Int]
    /// The tensors written over an input: output -> the input whose memory it takes (at the input's offset, or one
    /// row before it for a convolution).
    let overwrites: [Int: Int]
    /// The block's size in floats.
    let floats: Int
    /// The most floats alive at once in this order: what any placement needs at least.
    let peakFloats: Int

    /// - Throws: ``InferenceError/modelDamaged(_:)`` when shapes do not fit together (a convolution's channels,
    ///   an addition or a concatenation of different sizes) or a step reads what nothing computes.
    init(steps graphSteps: [Network.Step], input: Int, inputShape: TensorShape, output: Int, tensorCount: Int) throws {
        let shapes = try Self.shapes(of: graphSteps, input: input, inputShape: inputShape, tensorCount: tensorCount)
        let upsampled = Self.foldableResizes(graphSteps, shapes: shapes, output: output)
        self.upsampled = upsampled
        let kept = Self.fusingResiduals(graphSteps.filter { upsampled[$0.output] == nil }, shapes: shapes, output: output)
        let graphOrder = Self.Schedule(steps: kept, shapes: shapes, upsampled: upsampled, input: input, output: output)
        let scheduled = Self.Schedule(steps: Self.leastMemoryOrder(kept, shapes: shapes, upsampled: upsampled, output: output),
                                      shapes: shapes, upsampled: upsampled, input: input, output: output)
        let chosen = scheduled.peakFloats < graphOrder.peakFloats ? scheduled : graphOrder
        steps = chosen.steps
        self.shapes = shapes
        overwrites = chosen.overwrites
        peakFloats = chosen.peakFloats
        (offsets, floats) = chosen.placement()
    }

    /// Every tensor's shape, following the steps from the input.
    private static func shapes(of steps: [Network.Step], input: Int, inputShape: TensorShape,
                               tensorCount: Int) throws -> [TensorShape?] {
        var shapes = [TensorShape?](repeating: nil, count: tensorCount)
        shapes[input] = inputShape
        for step in steps {
            let ins = try step.inputs.map { t in
                guard let shape = shapes[t] else { throw InferenceError.modelDamaged("tensor \(t) read before it is written") }
                return shape
            }
            guard let first = ins.first else { throw InferenceError.modelDamaged("a step without inputs") }
            let sameSize = ins.allSatisfy { $0.height == first.height && $0.width == first.width }
            let out: TensorShape
            switch step {
            case .conv(let conv, _, _):
                let channels = ins.reduce(0) { $0 + $1.channels }
                guard sameSize, channels == conv.inChannels else {
                    throw InferenceError.modelDamaged("conv expects \(conv.inChannels) channels of one size, got \(ins)")
                }
                out = TensorShape(channels: conv.outChannels, height: first.height, width: first.width)
            case .relu, .sigmoid: out = first
            case .add:
                guard ins.allSatisfy({ $0 == first }) else { throw InferenceError.modelDamaged("add of tensors of different shapes") }
                out = first
            case .maxPool: out = TensorShape(channels: first.channels, height: (first.height + 1) / 2, width: (first.width + 1) / 2)
            case .resize(_, _, let h, let w):
                guard h > 0, w > 0 else { throw InferenceError.modelDamaged("resize to \(h)x\(w)") }
                out = TensorShape(channels: first.channels, height: h, width: w)
            case .concat:
                guard sameSize else { throw InferenceError.modelDamaged("concat of tensors of different sizes") }
                out = TensorShape(channels: ins.reduce(0) { $0 + $1.channels }, height: first.height, width: first.width)
            case .convAdd(let conv, _, _, _):
                let read = ins.dropFirst()
                guard sameSize, read.reduce(0, { $0 + $1.channels }) == conv.inChannels, first.channels == conv.outChannels else {
                    throw InferenceError.modelDamaged("conv and add of \(ins)")
                }
                out = first
            }
            shapes[step.output] = out
        }
        return shapes
    }

    /// The resizes whose every reader is a convolution that runs as Winograd at their size (and that are not the
    /// output): enlarged tensor -> the tensor it enlarges.
    private static func foldableResizes(_ steps: [Network.Step], shapes: [TensorShape?], output: Int) -> [Int: Int] {
        var readers = [Int: [Network.Step]]()
        for step in steps { for t in step.inputs { readers[t, default: []].append(step) } }
        var folded = [Int: Int]()
        for step in steps {
            guard case .resize(let input, let out, let h, let w) = step, out != output,
                  let source = shapes[input], source.height != h || source.width != w,
                  let rs = readers[out], rs.allSatisfy({ reader in
                      if case .conv(let conv, _, _) = reader { conv.runsWinograd(onPixels: h * w) } else { false }
                  }) else { continue }
            folded[out] = input
        }
        return folded
    }

    /// `steps` with each addition whose one input is read by nothing else and computed by a convolution that runs as
    /// Winograd at its size replaced by one step, at the addition's place, that adds the convolution's result to
    /// the other input.
    static func fusingResiduals(_ steps: [Network.Step], shapes: [TensorShape?], output: Int) -> [Network.Step] {
        var readers = [Int: Int](), producer = [Int: Int]()
        for (i, step) in steps.enumerated() {
            for t in step.inputs { readers[t, default: 0] += 1 }
            producer[step.output] = i
        }
        var result: [Network.Step?] = steps
        for (j, step) in steps.enumerated() {
            guard case .add(let a, let b, let sum) = step else { continue }
            for (computed, residual) in [(a, b), (b, a)] {
                guard computed != output, readers[computed] == 1, let i = producer[computed],
                      case .conv(let conv, let inputs, _)? = result[i], let shape = shapes[computed],
                      conv.runsWinograd(onPixels: shape.height * shape.width) else { continue }
                result[i] = nil
                result[j] = .convAdd(conv, inputs: inputs, residual: residual, output: sum)
                break
            }
        }
        return result.compactMap { $0 }
    }

    /// The input a step writes its output over, and where the output begins relative to it (floats), when the
    /// step is the last reader of that input (`isFreed`) and reads it once: an elementwise step or a residual sum
    /// over its first input, in place; a Winograd convolution over a stored input of its output's shape, one row
    /// before it. Never the network's output: it is read after the pass.
    static func overwrite(by step: Network.Step, shapes: [TensorShape?], upsampled: [Int: Int], output: Int,
                          isFreed: (Int) -> Bool) -> (input: Int, shift: Int)? {
        let reads = step.inputs.map { upsampled[$0] ?? $0 }
        func candidate(_ t: Int) -> Bool { t != output && isFreed(t) && reads.count(where: { $0 == t }) == 1 }
        switch step {
        case .relu, .sigmoid, .add, .convAdd:
            return candidate(step.inputs[0]) ? (step.inputs[0], 0) : nil
        case .conv(let conv, let inputs, let out):
            guard let shape = shapes[out], conv.runsWinograd(onPixels: shape.height * shape.width),
                  let x = inputs.first(where: { upsampled[$0] == nil && shapes[$0] == shape && candidate($0) }) else { return nil }
            return (x, -shape.width)
        case .maxPool, .resize, .concat:
            return nil
        }
    }

    /// The steps reordered by list scheduling: of the steps whose inputs exist, the one whose output adds the least
    /// (less the inputs it frees), the earlier in the graph on a tie.
    private static func leastMemoryOrder(_ steps: [Network.Step], shapes: [TensorShape?], upsampled: [Int: Int],
                                         output: Int) -> [Network.Step] {
        // What a step reads in memory: an enlarged tensor is its source.
        func reads(_ step: Network.Step) -> Set<Int> { Set(step.inputs.map { upsampled[$0] ?? $0 }) }
        var readersLeft = [Int: Int]()
        for step in steps { for t in reads(step) { readersLeft[t, default: 0] += 1 } }
        var producers = [Int: Int]()
        for (i, step) in steps.enumerated() { producers[step.output] = i }
        var waiting = [Int: Int]()  // step -> inputs not yet computed
        var consumers = [Int: [Int]]()
        for (i, step) in steps.enumerated() {
            let pending = reads(step).filter { producers[$0] != nil }
            waiting[i] = pending.count
            for t in pending { consumers[t, default: []].append(i) }
        }
        var ready = Set(steps.indices.filter { waiting[$0] == 0 })
        func size(_ t: Int) -> Int { shapes[t]?.count ?? 0 }
        func added(_ i: Int) -> Int {
            let step = steps[i]
            let freed = reads(step).filter { readersLeft[$0] == 1 && $0 != output }
            let inPlace = overwrite(by: step, shapes: shapes, upsampled: upsampled, output: output,
                                    isFreed: { freed.contains($0) }) != nil
            return (inPlace ? 0 : size(step.output)) - freed.reduce(0) { $0 + size($1) }
        }
        var order: [Network.Step] = []
        while let next = ready.min(by: { (added($0), $0) < (added($1), $1) }) {
            ready.remove(next)
            order.append(steps[next])
            for t in reads(steps[next]) { readersLeft[t, default: 0] -= 1 }
            for c in consumers[steps[next].output] ?? [] {
                waiting[c]! -= 1
                if waiting[c] == 0 { ready.insert(c) }
            }
        }
        return order.count == steps.count ? order : steps
    }

    /// One order of the steps with each tensor's lifetime in it.
    private struct Schedule {
        let steps: [Network.Step]
        let shapes: [TensorShape?]
        /// Tensors sharing storage: a step's output that writes over an input maps to the tensor whose storage it
        /// takes (the first of the chain).
        var storage: [Int: Int] = [:]
        /// Where a tensor that shares storage begins, relative to that storage's first tensor (floats, at most 0).
        var shift: [Int: Int] = [:]
        /// Floats a storage needs before its first tensor (for outputs that begin before it).
        var front: [Int: Int] = [:]
        /// Output -> the input it writes over.
        var overwrites: [Int: Int] = [:]
        /// Per storage tensor, the first and last step it is alive in (-1: before the first).
        var lifetimes: [Int: ClosedRange<Int>] = [:]
        var peakFloats = 0

        init(steps: [Network.Step], shapes: [TensorShape?], upsampled: [Int: Int], input: Int, output: Int) {
            self.steps = steps
            self.shapes = shapes
            var last = [Int: Int]()
            for (i, step) in steps.enumerated() { for t in step.inputs { last[upsampled[t] ?? t] = i } }
            last[output] = steps.count
            func root(_ t: Int) -> Int { storage[t] ?? t }
            lifetimes[input] = -1...(last[input] ?? -1)
            for (i, step) in steps.enumerated() {
                if let (x, delta) = ActivationPlan.overwrite(by: step, shapes: shapes, upsampled: upsampled, output: output,
                                                             isFreed: { last[$0] == i }) {
                    let r = root(x), s = (shift[x] ?? 0) + delta
                    storage[step.output] = r
                    shift[step.output] = s
                    front[r] = max(front[r] ?? 0, -s)
                    overwrites[step.output] = x
                    lifetimes[r] = lifetimes[r]!.lowerBound...max(lifetimes[r]!.upperBound, last[step.output] ?? i)
                } else {
                    lifetimes[step.output] = i...max(i, last[step.output] ?? i)
                }
            }
            var alive = [Int](repeating: 0, count: steps.count + 2)
            for (t, life) in lifetimes {
                for i in max(life.lowerBound, -1)...life.upperBound { alive[i + 1] += footprint(t) }
            }
            peakFloats = alive.max() ?? 0
        }

        /// The floats a storage takes: its first tensor and what outputs written over it need before it.
        func footprint(_ t: Int) -> Int { (shapes[t]?.count ?? 0) + (front[t] ?? 0) }

        /// Offsets by greedy placement, largest first; the block's size.
        func placement() -> ([Int?], Int) {
            var offsets = [Int?](repeating: nil, count: shapes.count)
            var placed: [(range: Range<Int>, life: ClosedRange<Int>)] = []
            let bySize = lifetimes.keys.sorted { (footprint($0), -$0) > (footprint($1), -$1) }
            var total = 0
            for t in bySize {
                let size = footprint(t), life = lifetimes[t]!
                var offset = 0
                for other in placed.filter({ $0.life.overlaps(life) }).sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
                    if offset + size <= other.range.lowerBound { break }
                    offset = max(offset, other.range.upperBound)
                }
                placed.append((offset..<offset + size, life))
                offsets[t] = offset + (front[t] ?? 0)
                total = max(total, offset + size)
            }
            for (t, r) in storage { offsets[t] = offsets[r]! + shift[t]! }
            return (offsets, total)
        }
    }
}
