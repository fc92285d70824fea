import Compute
import Foundation
import Imaging
import Inference

/// `photobench u2net [--rounds N] [--side N] [--kernels baseline|avx2|avx512]`: U²-Netp forward passes at 320x320
/// (or N x N) on one core, the C kernels at the CPU's best level or the one named, input of the same normalised range as a photo's, each pass reusing the last one's activation block. Prints the best and median seconds;
/// bench/u2net_peers.py times onnxruntime on the same machine in the same run.
enum U2NetBench {
    static func run(_ args: [String]) throws {
        var rounds = 5
        if let i = args.firstIndex(of: "--rounds"), i + 1 < args.count, let n = Int(args[i + 1]) { rounds = n }
        var network = try Network.u2netp.get()
        if let i = args.firstIndex(of: "--side"), i + 1 < args.count, let side = Int(args[i + 1]) {
            network = try network.resized(toHeight: side, width: side)
        }
        if let i = args.firstIndex(of: "--kernels"), i + 1 < args.count {
            guard let level = KernelLevel(name: args[i + 1]) else {
                throw StickerBench.BenchError("--kernels takes baseline, avx2 or avx512")
            }
            KernelLevel.use(level)
        }
        if let i = args.firstIndex(of: "--maps"), i + 2 < args.count {
            try writeMaps(network, from: args[i + 1], to: args[i + 2])
            return
        }
        var input = Tensor(channels: 3, height: network.inputHeight, width: network.inputWidth)
        for i in 0..<input.data.count { input.data[i] = Float((i * 7919) % 255) / 255 * 4 - 2 }
        // One memory for every pass, as the worker lends its blocks from pass to pass.
        let memory = ActivationMemory()
        _ = try network.forward(input, parallel: InTurnLoop(), memory: memory)  // warm up (weights paged in, the block)
        var times: [Double] = []
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            _ = try network.forward(input, parallel: InTurnLoop(), memory: memory)
            let d = ContinuousClock.now - start
            times.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        }
        times.sort()
        print(String(format: "u2netp forward %dx%d, 1 thread (kernels %@): best %.3f s, median %.3f s over %d",
                     network.inputHeight, network.inputWidth, KernelLevel.current.name, times[0],
                     times[times.count / 2], rounds))
        print(String(format: "activations: one block of %.1f MB (at most %.1f MB alive at once)",
                     Double(network.activationBytes) / 1e6, Double(network.liveActivationBytes) / 1e6))
    }

    /// `--maps DIR OUT [--side N]`: the map of every photo in DIR, fed as gen-u2netp.py feeds
    /// onnxruntime (sampled at pixel centres to the input size, 320x320 or N x N, divided by the
    /// maximum, ImageNet mean and deviation), written to OUT/NAME.f32 (raw little-endian floats) for
    /// bench/u2net_exactness.py.
    static func writeMaps(_ network: Network, from dir: String, to out: String) throws {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let mean: [Float] = [0.485, 0.456, 0.406], std: [Float] = [0.229, 0.224, 0.225]
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted()
        for name in names {
            let image = try ImageCodec.decode(Array(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(name)"))), on: .inTurn).image
            let input = Tensor.normalizedRGB(rgba: image.pixels, width: image.width, height: image.height, size: network.inputWidth,
                                             mean: mean, std: std)
            let map = try network.forward(input, parallel: InTurnLoop())
            try map.data.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: "\(out)/\(name).f32")) }
        }
        print("wrote \(names.count) maps to \(out)")
    }
}
