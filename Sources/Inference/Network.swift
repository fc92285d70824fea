import BundledResources
import Compute
import Foundation

/// A fixed-shape convolutional network (U²-Netp) loaded from the worker's own format
/// (scripts/gen-u2netp.py): immutable and `Sendable`, so one instance serves every job at once.
///
/// Only the ops the output depends on run (the side outputs' sigmoids are dropped at load), and a
/// concat read only by convolutions is never built (they read its parts). A pass keeps its
/// activations in one block laid out in advance (``ActivationPlan``): memory holds the live skip
/// connections rather than every activation, and is handed back whole when the pass ends.
/// Cancellation is checked between layers and, inside convolutions, per band of rows.
public final class Network: Sendable {
    enum Step: Sendable {
        /// A convolution of the channel concatenation of `inputs` (a concat it is the only reader of
        /// is folded into it).
        case conv(Convolution, inputs: [Int], output: Int)
        case relu(input: Int, output: Int)
        case maxPool(input: Int, output: Int)
        case resize(input: Int, output: Int, height: Int, width: Int)
        case concat(inputs: [Int], output: Int)
        case add(Int, Int, output: Int)
        case sigmoid(input: Int, output: Int)
        /// A convolution whose result is added to `residual`: a Winograd convolution and the addition that is its
        /// only reader, fused by the activation plan so that the sum is written where the residual lies.
        case convAdd(Convolution, inputs: [Int], residual: Int, output: Int)

        var inputs: [Int] {
            switch self {
            case .relu(let i, _), .maxPool(let i, _), .resize(let i, _, _, _), .sigmoid(let i, _): [i]
            case .concat(let ins, _), .conv(_, let ins, _): ins
            case .add(let a, let b, _): [a, b]
            case .convAdd(_, let ins, let residual, _): [residual] + ins
            }
        }

        var output: Int {
            switch self {
            case .conv(_, _, let o), .relu(_, let o), .maxPool(_, let o), .resize(_, let o, _, _), .concat(_, let o),
                 .add(_, _, let o), .sigmoid(_, let o), .convAdd(_, _, _, let o): o
            }
        }
    }

    public let name: String
    /// The input the network takes: channels, height, width.
    public let inputChannels: Int, inputHeight: Int, inputWidth: Int
    /// Weights and biases.
    public let parameterCount: Int
    private let inputTensor: Int
    private let outputTensor: Int
    private let tensorCount: Int
    /// The steps the output depends on, in the graph's order.
    let steps: [Step]
    /// Their order in a pass at this input size and where each activation lives.
    let plan: ActivationPlan

    init(graph: NetworkGraph, weights: [Float]) throws {
        name = graph.name
        inputChannels = graph.input.channels
        inputHeight = graph.input.height
        inputWidth = graph.input.width
        inputTensor = graph.input.tensor
        outputTensor = graph.output
        tensorCount = graph.tensors
        parameterCount = graph.parameters
        guard weights.count == graph.parameters else {
            throw InferenceError.modelDamaged("\(weights.count) weights for \(graph.parameters) parameters")
        }
        func slice(_ offset: Int?, _ count: Int) throws -> [Float] {
            guard let offset, offset >= 0, offset + count <= weights.count else {
                throw InferenceError.modelDamaged("weights out of range")
            }
            return Array(weights[offset..<offset + count])
        }
        var all: [Step] = []
        // Each tensor's height and width, followed through the graph (the shapes are fixed): a
        // convolution prepares Winograd weights only if its maps are large enough to use them.
        var sides = [Int: (height: Int, width: Int)]()
        sides[graph.input.tensor] = (graph.input.height, graph.input.width)
        for op in graph.ops {
            guard op.out >= 0 && op.out < graph.tensors, op.inputs.allSatisfy({ $0 >= 0 && $0 < graph.tensors }) else {
                throw InferenceError.modelDamaged("tensor reference out of range")
            }
            guard let firstInput = op.inputs.first else { throw InferenceError.modelDamaged("\(op.op) without inputs") }
            let side = sides[firstInput]
            switch op.op {
            case .maxpool: sides[op.out] = side.map { (($0.height + 1) / 2, ($0.width + 1) / 2) }
            case .resize: sides[op.out] = op.height.flatMap { h in op.width.map { (h, $0) } }
            default: sides[op.out] = side
            }
            switch op.op {
            case .conv:
                guard let cin = op.cin, let cout = op.cout, let k = op.k, k == 1 || k == 3 else {
                    throw InferenceError.modelDamaged("conv without its shape")
                }
                let conv = Convolution(inChannels: cin, outChannels: cout, kernel: k, dilation: op.dilation ?? 1,
                                       relu: op.relu ?? false, weights: try slice(op.weights, cout * cin * k * k),
                                       bias: try slice(op.bias, cout), mapPixels: side.map { $0.height * $0.width })
                all.append(.conv(conv, inputs: [firstInput], output: op.out))
            case .relu: all.append(.relu(input: firstInput, output: op.out))
            case .maxpool: all.append(.maxPool(input: firstInput, output: op.out))
            case .resize:
                guard let h = op.height, let w = op.width else { throw InferenceError.modelDamaged("resize without a size") }
                all.append(.resize(input: firstInput, output: op.out, height: h, width: w))
            case .concat: all.append(.concat(inputs: op.inputs, output: op.out))
            case .add:
                guard op.inputs.count == 2 else { throw InferenceError.modelDamaged("add of \(op.inputs.count) tensors") }
                all.append(.add(firstInput, op.inputs[1], output: op.out))
            case .sigmoid: all.append(.sigmoid(input: firstInput, output: op.out))
            }
        }
        // Keep what the output depends on, walking back from it.
        var needed = Set([graph.output])
        var kept: [Step] = []
        for step in all.reversed() where needed.contains(step.output) {
            kept.append(step)
            needed.formUnion(step.inputs)
        }
        steps = Self.foldingConcats(into: kept.reversed())
        guard steps.last?.output == graph.output else { throw InferenceError.modelDamaged("nothing computes the output") }
        plan = try ActivationPlan(steps: steps, input: inputTensor, inputShape: TensorShape(
            channels: inputChannels, height: inputHeight, width: inputWidth), output: outputTensor, tensorCount: tensorCount)
    }

    /// This network for another input size, sharing its weights: the same convolutions (each keeps
    /// or lacks its Winograd filters as at this size; one without them takes im2col), the resizes'
    /// targets moved to the same pooling levels of the new input (`PoolingLevels`).
    /// - Throws: ``InferenceError`` for an empty size or a resize that is no pooling level.
    public func resized(toHeight height: Int, width: Int) throws -> Network {
        let levels = try PoolingLevels(fromHeight: inputHeight, fromWidth: inputWidth, toHeight: height, toWidth: width)
        let moved = try steps.map { step -> Step in
            guard case .resize(let input, let output, let h, let w) = step else { return step }
            let target = try levels.target(height: h, width: w)
            return .resize(input: input, output: output, height: target.height, width: target.width)
        }
        return try Network(self, inputHeight: height, inputWidth: width, steps: moved)
    }

    private init(_ other: Network, inputHeight: Int, inputWidth: Int, steps: [Step]) throws {
        name = other.name
        inputChannels = other.inputChannels
        self.inputHeight = inputHeight
        self.inputWidth = inputWidth
        parameterCount = other.parameterCount
        inputTensor = other.inputTensor
        outputTensor = other.outputTensor
        tensorCount = other.tensorCount
        self.steps = steps
        plan = try ActivationPlan(steps: steps, input: inputTensor, inputShape: TensorShape(
            channels: inputChannels, height: inputHeight, width: inputWidth), output: outputTensor, tensorCount: tensorCount)
    }

    /// `steps` without the concats whose every reader is a convolution: those read the parts.
    static func foldingConcats(into steps: [Step]) -> [Step] {
        var readers = [Int: [Step]]()
        for step in steps { for t in step.inputs { readers[t, default: []].append(step) } }
        var parts = [Int: [Int]]()
        for step in steps {
            guard case .concat(let inputs, let output) = step, let rs = readers[output],
                  rs.allSatisfy({ if case .conv = $0 { true } else { false } }) else { continue }
            parts[output] = inputs
        }
        return steps.compactMap { step in
            switch step {
            case .concat(_, let output) where parts[output] != nil: nil
            case .conv(let conv, let inputs, let output): .conv(conv, inputs: inputs.flatMap { parts[$0] ?? [$0] }, output: output)
            default: step
            }
        }
    }

    /// Loads `name.json` and `name.bin` from the module's resources.
    public static func load(named name: String) throws -> Network {
        guard let graphURL = resource("\(name).json"), let weightsURL = resource("\(name).bin") else {
            throw InferenceError.modelMissing(
                "\(name).json / \(name).bin: \(BundledResource.Bundle.inference.directoryName) is not beside the executable")
        }
        let graph: NetworkGraph
        do {
            graph = try JSONDecoder().decode(NetworkGraph.self, from: Data(contentsOf: graphURL))
        } catch {
            throw InferenceError.modelDamaged("\(name).json: \(error)")
        }
        guard let bytes = try? Data(contentsOf: weightsURL), bytes.count % 4 == 0 else {
            throw InferenceError.modelDamaged("\(name).bin is unreadable or not whole floats")
        }
        let weights = bytes.withUnsafeBytes { raw in
            (0..<bytes.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
        return try Network(graph: graph, weights: weights)
    }

    /// A model file: in the resource bundle beside the executable (SwiftPM's layout; tests and photobench run from
    /// the build folder, which has it too) and nowhere else, so a copied worker uses what travels with it, never
    /// the checkout it was built from. Not `Bundle.module`, which stops the process when the bundle is missing:
    /// a worker copied without it must still serve (with the classical cut).
    static func resource(_ file: String) -> URL? {
        BundledResource.url(file, in: .inference)
    }

    /// U²-Netp, loaded on first use and shared (nil with the reason if it cannot be loaded).
    public static let u2netp = InferenceError.result { try load(named: "u2netp") }

    /// Runs the network on `input` (`inputChannels x inputHeight x inputWidth`).
    /// - Parameters:
    ///   - parallel: where the Winograd convolutions may spread their bands over idle threads (the results are
    ///     the same: each band is computed alike wherever it runs), and whose cancellation stops the pass
    ///     (``ParallelLoop/checkCancellation()``, between layers and per band of rows inside convolutions). The
    ///     default, ``InTurnLoop``, is for code off the compute pool: its cancellation is the calling task's.
    ///   - memory: where the pass borrows its activations' block (and returns it, for the job's next pass); nil
    ///     allocates one for this pass alone.
    public func forward(_ input: Tensor, parallel: any ParallelLoop, memory: ActivationMemory? = nil) throws -> Tensor {
        let lender = memory ?? ActivationMemory()
        let taken = lender.take(floats: plan.floats)
        defer { lender.give(taken) }
        return try forward(input, in: ActivationBlock(block: taken), parallel: parallel)
    }

    /// Runs the network on `input` in a block lent by ``ActivationMemory/withBlock(for:_:)`` for this network.
    public func forward(_ input: Tensor, in lent: ActivationBlock, parallel: any ParallelLoop) throws -> Tensor {
        guard input.channels == inputChannels, input.height == inputHeight, input.width == inputWidth else {
            throw InferenceError.badInput("expected \(inputChannels)x\(inputHeight)x\(inputWidth), got \(input.channels)x\(input.height)x\(input.width)")
        }
        guard lent.block.floats >= plan.floats else {
            throw InferenceError.badInput("an activation block of \(lent.block.floats) floats for a pass that needs \(plan.floats)")
        }
        let block = lent.block.base
        func view(_ t: Int) -> TensorView {
            // Every tensor a step reads or writes has a shape and a place: the plan was built from these steps.
            TensorView(shape: plan.shapes[t]!, base: block + plan.offsets[t]!)
        }
        input.data.withUnsafeBufferPointer { view(inputTensor).base.update(from: $0.baseAddress!, count: $0.count) }
        func parts(_ inputs: [Int]) -> [Convolution.Input] {
            inputs.map { t in plan.upsampled[t].map { .upsampled(view($0)) } ?? .stored(view(t)) }
        }
        var workspace = ConvolutionWorkspace()
        let bands = parallel.width > 1 ? ParallelBands(parallel) : nil
        for step in plan.steps {
            try parallel.checkCancellation()
            let out = view(step.output)
            switch step {
            case .conv(let conv, let inputs, _):
                // Written one row before an input it is the last to read, when the plan says so.
                let overlap = plan.overwrites[step.output].flatMap { inputs.firstIndex(of: $0) }.map(Convolution.Overlap.overwrites)
                try conv.apply(parts(inputs), into: out, workspace: &workspace, parallel: bands, overlap: overlap ?? .none,
                               on: parallel)
            case .convAdd(let conv, let inputs, let residual, _):
                // The sum is computed where the residual lies; when the residual is read again, on a copy of it.
                let kept = view(residual)
                if kept.base != out.base { out.base.update(from: kept.base, count: kept.count) }
                try conv.apply(parts(inputs), into: out, workspace: &workspace, parallel: bands, overlap: .addsToOutput, on: parallel)
            case .relu(let input, _): Elementwise.relu(view(input), into: out)
            case .maxPool(let input, _): Pooling.maxPool2x2(view(input), into: out)
            case .resize(let input, _, _, _): BilinearResize.resize(view(input), into: out)
            case .concat(let inputs, _): Elementwise.concat(inputs.map(view), into: out)
            case .add(let a, let b, _): Elementwise.add(view(a), view(b), into: out)
            case .sigmoid(let input, _): Elementwise.sigmoid(view(input), into: out)
            }
        }
        let result = view(outputTensor)
        return Tensor(channels: result.channels, height: result.height, width: result.width) {
            $0.update(from: result.base, count: result.count)
        }
    }

    /// Ops that run per forward pass (after dropping what the output does not need).
    public var stepCount: Int { steps.count }

    /// The memory a pass holds for its activations (its one block; the convolutions' scratch comes on top).
    public var activationBytes: Int { plan.floats * MemoryLayout<Float>.stride }

    /// The most activation memory alive at once in the plan's order: what any placement needs at least.
    public var liveActivationBytes: Int { plan.peakFloats * MemoryLayout<Float>.stride }
}
