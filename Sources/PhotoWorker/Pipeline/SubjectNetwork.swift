import Compute
import Imaging
import Inference

/// U²-Netp's subject map of a photo: the photo resized to the network's 320x320 (Lanczos), scaled by
/// its brightest channel value and normalised with ImageNet's mean and deviation (as rembg feeds it),
/// one forward pass, the sigmoid map back. Mirrored, the map is averaged with the map of the mirror
/// image, whose pass runs at `mirrorSide` (the same weights, `Network.resized`).
public enum SubjectNetwork {
    static let mean: [Float] = [0.485, 0.456, 0.406]
    static let std: [Float] = [0.229, 0.224, 0.225]

    /// The mirror image's input size: on the tuning half of sticker-dev its pass at 256 serves the
    /// average as well as one at 320 (bench/README.md), for 0.64x the multiply-accumulates.
    static let mirrorSide = 256

    /// U²-Netp at `mirrorSide`, sharing the weights of `Network.u2netp`.
    static let mirrorNetwork = Network.u2netp.flatMap { network in
        InferenceError.result { try network.resized(toHeight: mirrorSide, width: mirrorSide) }
    }

    /// The two networks a mirrored map runs, loaded (once per process).
    public struct Networks: Sendable {
        let direct: Network
        let mirror: Network

        /// The photo's pass on `direct` and the mirror image's on `mirror` (any input sizes: for measurements).
        public init(direct: Network, mirror: Network) {
            self.direct = direct
            self.mirror = mirror
        }

        /// Both passes on the mirror network (its input size): a subject's own cut (a point's, or each subject
        /// `image.subjects` lists) maps its part with one pass at that size, unmirrored, which on the tuning half
        /// served as well as the two full passes it replaced (bench/README.md, issue #47).
        public var small: Networks { Networks(direct: mirror, mirror: mirror) }

        /// - Throws: ``InferenceError`` when the model cannot be loaded (missing or damaged resources): the one
        ///   case where a caller may fall back to the classical cut.
        public static func load() throws(InferenceError) -> Networks {
            Networks(direct: try Network.u2netp.get(), mirror: try mirrorNetwork.get())
        }
    }

    /// The photo's map, and with `mirrored` the mean of it and its mirror image's map (one more pass, at
    /// `mirrorSide`; steadier maps). The two passes are independent stages: on the compute threads they run at
    /// once, one per thread (most of a sticker's latency); the activation blocks and what malloc holds free are
    /// then offered back (``StageRunner/handBackSpareMemory(_:)``): a runner with stages one after another (a large
    /// photo) hands them back to the system before the cut, whose full-size buffers would otherwise come on top.
    /// - Parameters:
    ///   - region: the part of the photo to map, as if cropped (read in place, not copied); nil for all of it.
    ///   - memory: where the passes borrow their activations' blocks (the worker's, so the next passes reuse them).
    ///   - mirrorMapReady: told the mirror image's map (at `mirrorSide`, mirrored) as soon as its pass ends, usually
    ///     well before the photo's: a first sign of what the whole map will look like.
    /// - Throws: `CancellationError`; ``InferenceError`` for an input the network refuses.
    public static func map(for image: Image, region: PixelRect? = nil, mirrored: Bool, networks: Networks,
                           on stages: some StageRunner,
                           memory: ActivationMemory = ActivationMemory(),
                           mirrorMapReady: (@Sendable (SubjectMap) -> Void)? = nil) async throws -> SubjectMap {
        let inputs = try await stages.stage { loop in
            try Self.inputs(for: image, region: region, mirrored: mirrored, networks: networks, on: loop)
        }
        guard let mirror = inputs.mirror else {
            let map = try await pass(inputs.direct, on: networks.direct, stages: stages, memory: memory)
            stages.handBackSpareMemory { memory.handBack() }
            return map
        }
        let (map, flipped) = try await stages.pair(
            { try await pass(inputs.direct, on: networks.direct, stages: stages, memory: memory) },
            {
                let flipped = try await pass(mirror, on: networks.mirror, stages: stages, memory: memory)
                mirrorMapReady?(flipped)
                return flipped
            })
        stages.handBackSpareMemory { memory.handBack() }
        return average(map, mirroredMap: flipped)
    }

    /// The map for a box drawn round the subject: the photo's map (as `map(for:mirrored:networks:on:memory:)`)
    /// averaged with the map of `region` alone (``focusRegion(for:width:height:)``), where the network sees the
    /// subject large; on a grid of the photo with `longSide` pixels on its long side (the cut's working size).
    /// The two maps' passes are stages of their own, so they run beside each other when `stages` allows.
    /// - Throws: `CancellationError`; ``InferenceError`` for an input the network refuses.
    public static func map(for image: Image, focusedOn region: PixelRect, longSide: Int, mirrored: Bool,
                           networks: Networks, on stages: some StageRunner,
                           memory: ActivationMemory = ActivationMemory(),
                           mirrorMapReady: (@Sendable (SubjectMap) -> Void)? = nil) async throws -> SubjectMap {
        let (whole, part) = try await stages.pair(
            { try await map(for: image, mirrored: mirrored, networks: networks, on: stages, memory: memory,
                            mirrorMapReady: mirrorMapReady) },
            { try await map(for: image, region: region, mirrored: mirrored, networks: networks, on: stages, memory: memory) })
        return whole.averaged(with: part, of: region, photoWidth: image.width, photoHeight: image.height,
                              longSide: longSide)
    }

    /// The part of the photo a box prompt has mapped on its own: the box grown by a tenth of its size a side, on the
    /// photo; nil when the box covers `focusedBoxShare` of the photo or more (the network sees its subject large
    /// enough already) or lies off it.
    public static func focusRegion(for box: PixelRect, width: Int, height: Int) -> PixelRect? {
        guard let onPhoto = box.clipped(toWidth: width, height: height),
              Double(onPhoto.width * onPhoto.height) < focusedBoxShare * Double(width * height) else { return nil }
        return onPhoto.grownByATenth(within: width, height: height)
    }

    /// A box under this share of the photo's area has its part mapped as well: on sticker-dev's tuning half the
    /// second map gained on such boxes and changed nothing or lost on larger ones (bench/README.md, issue #47).
    static let focusedBoxShare = 0.5

    /// Photos up to this many pixels get their stages at once (12 megapixels, 48 MB decoded).
    static let concurrentPassPixels = 12_000_000

    /// The photo (or its `region`) as the network takes it (resized to its input size, Lanczos, and normalised) and,
    /// when `mirrored`, its mirror image at the mirror network's input size (resized from the first: the photo is
    /// reduced once).
    static func inputs(for image: Image, region: PixelRect? = nil, mirrored: Bool,
                       networks: Networks, on loop: some ParallelLoop) throws -> (direct: Tensor, mirror: Tensor?) {
        let network = networks.direct, side = networks.mirror.inputWidth
        let r = region ?? PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        let small = try Resampler.resize(image, sourceX: r.x, sourceY: r.y, sourceWidth: r.width, sourceHeight: r.height,
                                         width: network.inputWidth, height: network.inputHeight, on: loop)
        guard mirrored else { return (tensor(small), nil) }
        return (tensor(small), Self.mirrored(tensor(try Resampler.resize(small, width: side, height: side, on: loop))))
    }

    /// One forward pass as a stage of `stages`, once `memory` lends it a block (within the worker's budget, a pass
    /// may wait for one, suspended); its convolutions spread over the stages' idle threads.
    static func pass(_ input: Tensor, on network: Network, stages: some StageRunner,
                     memory: ActivationMemory) async throws -> SubjectMap {
        try await memory.withBlock(for: network) { block in
            try await stages.stage { loop in
                let map = try network.forward(input, in: block, parallel: loop)
                return SubjectMap(width: map.width, height: map.height, values: map.data)
            }
        }
    }

    /// What the worker's passes may hold at once (``ActivationMemory``'s budget): a photo's two passes side by
    /// side, and a mirror pass on each other thread. On two threads that is one block of each size, 61 MB, where
    /// two photos' passes would otherwise hold two 320x320 blocks, 74 MB: a second photo's 320x320 pass waits for
    /// the first's block, its thread meanwhile on other work or helping the running pass.
    static func activationBudget(threads: Int) -> Int? {
        guard let networks = try? Networks.load() else { return nil }
        return networks.direct.activationBytes + max(0, threads - 1) * networks.mirror.activationBytes
    }

    /// The mean of a map and the map of the mirror image, flipped back (and resized to the first).
    static func average(_ map: SubjectMap, mirroredMap: SubjectMap) -> SubjectMap {
        var back = mirroredMap.values
        let mw = mirroredMap.width
        for y in 0..<mirroredMap.height {
            for x in 0..<mw { back[y * mw + x] = mirroredMap.values[y * mw + (mw - 1 - x)] }
        }
        let flipped = SubjectMap(width: mw, height: mirroredMap.height, values: back).resized(width: map.width, height: map.height)
        return SubjectMap(width: map.width, height: map.height,
                          values: zip(map.values, flipped.values).map { 0.5 * ($0 + $1) })
    }

    /// The network's input for a photo already at its size.
    static func tensor(_ small: Image) -> Tensor {
        .normalizedRGB(rgba: small.pixels, width: small.width, height: small.height, size: small.width, mean: mean, std: std)
    }

    /// The tensor mirrored left to right.
    static func mirrored(_ t: Tensor) -> Tensor {
        var out = t
        for c in 0..<t.channels {
            for y in 0..<t.height {
                let row = (c * t.height + y) * t.width
                for x in 0..<t.width { out.data[row + x] = t.data[row + t.width - 1 - x] }
            }
        }
        return out
    }
}
