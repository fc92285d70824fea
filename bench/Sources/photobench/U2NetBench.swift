import COpenBLAS
import Foundation
import Inference

/// `photobench u2net [--rounds N]`: U²-Netp forward passes at 320x320 on one core (one BLAS
/// thread), input of the same normalised range as a photo's. Prints the best and median seconds;
/// bench/u2net_peers.py times onnxruntime on the same machine in the same run.
enum U2NetBench {
    static func run(_ args: [String]) throws {
        var rounds = 5
        if let i = args.firstIndex(of: "--rounds"), i + 1 < args.count, let n = Int(args[i + 1]) { rounds = n }
        let network = try Network.u2netp.get()
        var input = Tensor(channels: 3, height: 320, width: 320)
        for i in 0..<input.data.count { input.data[i] = Float((i * 7919) % 255) / 255 * 4 - 2 }
        _ = try network.forward(input)  // warm up (weights paged in, BLAS buffers)
        var times: [Double] = []
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            _ = try network.forward(input)
            let d = ContinuousClock.now - start
            times.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        }
        times.sort()
        let core = String(cString: openblas_get_corename())
        print(String(format: "u2netp forward 320x320, 1 thread (OpenBLAS %@): best %.3f s, median %.3f s over %d",
                     core, times[0], times[times.count / 2], rounds))
    }
}
