import BundledResources
import Compute
import Foundation

/// A boosted cascade of Haar-like features (Viola & Jones 2001, with Lienhart & Maydt's tree-shaped
/// weak classifiers), as OpenCV trains and ships them, evaluated the way OpenCV's `CascadeClassifier`
/// does so its trained thresholds keep their meaning: every feature value is a weighted sum of
/// rectangle sums divided by the window's standard deviation times its area (measured on the window
/// shrunk by one pixel all round), a tree adds one leaf value to its stage's sum, and a window is
/// rejected at the first stage whose sum falls below the stage threshold.
///
/// The model is a text resource of this target (Resources/haarcascade_frontalface_alt2.txt, made by
/// scripts/gen-face-cascade.py), read once at first use.
struct HaarCascade: Sendable {
    struct Node: Sendable {
        /// Children in OpenCV's convention: > 0 is another node of the same tree, <= 0 is leaf −index.
        var left: Int32, right: Int32
        var feature: Int32
        var threshold: Float
    }

    struct Tree: Sendable {
        var firstNode: Int32
        var firstLeaf: Int32
    }

    struct Stage: Sendable {
        var threshold: Float
        var firstTree: Int
        var treeCount: Int
    }

    /// One rectangle of a feature, in window pixels.
    struct Rect: Sendable {
        var x: Int32, y: Int32, width: Int32, height: Int32
        var weight: Float
    }

    let windowWidth: Int
    let windowHeight: Int
    let stages: [Stage]
    let trees: [Tree]
    let nodes: [Node]
    let leaves: [Float]
    /// Feature `f` is `rects[featureStart[f] ..< featureStart[f + 1]]`.
    let featureStart: [Int]
    let rects: [Rect]
    /// Whether every tree has exactly two nodes (a root and one child node), as in the frontal-face
    /// cascade: the scan then evaluates both and picks the leaf without branching.
    let twoNodeTrees: Bool

    /// OpenCV's frontal face detector (haarcascade_frontalface_alt2), or nil if its resource is missing or does
    /// not parse (the tests catch a damaged file; a worker installed without the bundle simply finds no faces).
    static let frontalFace: HaarCascade? = {
        guard let url = BundledResource.url("haarcascade_frontalface_alt2.txt", in: .imaging),
              let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return HaarCascade(text: String(decoding: data, as: UTF8.self))
    }()

    /// Parses the line format written by scripts/gen-face-cascade.py; nil on any inconsistency
    /// (a tree pointing at a missing feature, a rectangle outside the window, counts that disagree,
    /// a tree that loops), so the scan's unchecked indexing stays in bounds.
    init?(text: String) {
        var stages: [Stage] = [], trees: [Tree] = [], nodes: [Node] = [], leaves: [Float] = []
        var featureStart: [Int] = [], rects: [Rect] = []
        var window = (0, 0), declaredStages = 0, declaredFeatures = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: " ")
            guard let kind = f.first else { continue }
            switch kind {
            case "cascade":
                guard f.count == 5, let w = Int(f[1]), let h = Int(f[2]), let s = Int(f[3]), let n = Int(f[4]),
                      w > 2, h > 2 else { return nil }
                window = (w, h); declaredStages = s; declaredFeatures = n
            case "stage":
                guard f.count == 3, let t = Float(f[1]), let n = Int(f[2]) else { return nil }
                stages.append(Stage(threshold: t, firstTree: trees.count, treeCount: n))
            case "tree":
                guard f.count >= 2, let n = Int(f[1]), n > 0, f.count == 2 + 4 * n + n + 1 else { return nil }
                trees.append(Tree(firstNode: Int32(nodes.count), firstLeaf: Int32(leaves.count)))
                for k in 0..<n {
                    let b = 2 + 4 * k
                    // Children come after their parent (as OpenCV stores them), so walking a tree
                    // always ends at a leaf; a leaf index never exceeds the tree's n + 1 leaves.
                    guard let l = Int32(f[b]), let r = Int32(f[b + 1]), let feat = Int32(f[b + 2]),
                          let t = Float(f[b + 3]), l < n, r < n, l > -(n + 1), r > -(n + 1),
                          l <= 0 || Int(l) > k, r <= 0 || Int(r) > k else { return nil }
                    nodes.append(Node(left: l, right: r, feature: feat, threshold: t))
                }
                for k in 0...n {
                    guard let v = Float(f[2 + 4 * n + k]) else { return nil }
                    leaves.append(v)
                }
            case "feature":
                guard f.count >= 2, let n = Int(f[1]), n > 0, f.count == 2 + 5 * n else { return nil }
                featureStart.append(rects.count)
                for k in 0..<n {
                    let b = 2 + 5 * k
                    guard let x = Int32(f[b]), let y = Int32(f[b + 1]), let w = Int32(f[b + 2]),
                          let h = Int32(f[b + 3]), let weight = Float(f[b + 4]),
                          x >= 0, y >= 0, w > 0, h > 0, Int(x + w) <= window.0, Int(y + h) <= window.1
                    else { return nil }
                    rects.append(Rect(x: x, y: y, width: w, height: h, weight: weight))
                }
            default:
                return nil
            }
        }
        featureStart.append(rects.count)
        guard window.0 > 0, stages.count == declaredStages, featureStart.count - 1 == declaredFeatures,
              // Each stage owns exactly the trees that follow its line, up to the next stage.
              stages.indices.allSatisfy({ i in
                  stages[i].firstTree + stages[i].treeCount == (i + 1 < stages.count ? stages[i + 1].firstTree : trees.count)
              }),
              stages.first?.firstTree == 0,
              nodes.allSatisfy({ $0.feature >= 0 && Int($0.feature) < declaredFeatures })
        else { return nil }
        windowWidth = window.0; windowHeight = window.1
        self.stages = stages; self.trees = trees; self.nodes = nodes; self.leaves = leaves
        self.featureStart = featureStart; self.rects = rects
        twoNodeTrees = trees.indices.allSatisfy { t in
            let next = t + 1 < trees.count ? Int(trees[t + 1].firstNode) : nodes.count
            return next - Int(trees[t].firstNode) == 2
        }
    }

    /// A node with its feature resolved for one integral-image stride: up to three rectangles as
    /// corner offsets and weights (unused rectangles have weight 0 and offsets 0), so the scan reads
    /// one contiguous record per node instead of chasing the feature and rectangle tables.
    struct PackedNode {
        var offsets: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32)
        var weights: (Float, Float, Float)
        var threshold: Float
        var left: Int32, right: Int32
    }

    /// `nodes` resolved for an integral image with `stride` entries per row; nil if a feature has
    /// more than three rectangles (OpenCV's Haar features have two or three).
    func packed(stride: Int) -> [PackedNode]? {
        var out: [PackedNode] = []
        out.reserveCapacity(nodes.count)
        for node in nodes {
            let first = featureStart[Int(node.feature)], count = featureStart[Int(node.feature) + 1] - first
            guard count <= 3 else { return nil }
            func corners(_ k: Int) -> (Int32, Int32, Int32, Int32) {
                guard k < count else { return (0, 0, 0, 0) }
                let r = rects[first + k]
                let x0 = Int(r.x), y0 = Int(r.y), x1 = x0 + Int(r.width), y1 = y0 + Int(r.height)
                return (Int32(y0 * stride + x0), Int32(y0 * stride + x1), Int32(y1 * stride + x0), Int32(y1 * stride + x1))
            }
            func weight(_ k: Int) -> Float { k < count ? rects[first + k].weight : 0 }
            let a = corners(0), b = corners(1), c = corners(2)
            out.append(PackedNode(offsets: (a.0, a.1, a.2, a.3, b.0, b.1, b.2, b.3, c.0, c.1, c.2, c.3),
                                  weights: (weight(0), weight(1), weight(2)), threshold: node.threshold,
                                  left: node.left, right: node.right))
        }
        return out
    }

    /// The origins (x, y) of every window of an integral image that passes every stage, trying
    /// windows `step` pixels apart.
    /// - Parameters:
    ///   - sum: integral image of a `width` × `height` image, `width + 1` entries per row.
    ///   - squares: the integral image of the squared pixels, same layout.
    /// - Throws: `CancellationError`, checked every 16 rows of windows.
    func scan(sum: [Int32], squares: [Double], width: Int, height: Int, step: Int,
              on loop: some ParallelLoop) throws -> [(x: Int, y: Int)] {
        let stride = width + 1
        guard width >= windowWidth, height >= windowHeight, let packed = packed(stride: stride) else { return [] }
        // OpenCV normalises over the window shrunk by one pixel on each side.
        let nx0 = 1, ny0 = 1, nx1 = windowWidth - 1, ny1 = windowHeight - 1
        let area = Double((nx1 - nx0) * (ny1 - ny0))
        var hits: [(x: Int, y: Int)] = []
        let twoNodeTrees = self.twoNodeTrees
        var cancelled = false
        packed.withUnsafeBufferPointer { nodes in
        leaves.withUnsafeBufferPointer { leaves in
        trees.withUnsafeBufferPointer { trees in
        sum.withUnsafeBufferPointer { sum in
        squares.withUnsafeBufferPointer { squares in
            for y in Swift.stride(from: 0, through: height - windowHeight, by: step) {
                if y % 16 < step, loop.isCancelled { cancelled = true; return }
                for x in Swift.stride(from: 0, through: width - windowWidth, by: step) {
                    let origin = y &* stride &+ x
                    let a = origin + ny0 * stride + nx0, b = origin + ny0 * stride + nx1
                    let c = origin + ny1 * stride + nx0, d = origin + ny1 * stride + nx1
                    let s = Double(sum[d] &- sum[b] &- sum[c] &+ sum[a])
                    let sq = squares[d] - squares[b] - squares[c] + squares[a]
                    let v = area * sq - s * s
                    // Comparing the raw feature with threshold × norm saves a multiply per node.
                    let norm = Float(v > 0 ? v.squareRoot() : 1)
                    let base = sum.baseAddress! + origin
                    var accepted = true
                    for stage in stages {
                        var stageSum: Float = 0
                        for t in stage.firstTree..<(stage.firstTree &+ stage.treeCount) {
                            let tree = trees[t]
                            if twoNodeTrees {
                                // Both nodes evaluated and the leaf selected without a branch: which
                                // node decides is data-dependent and mispredicts half the time.
                                let n0 = nodes[Int(tree.firstNode)], n1 = nodes[Int(tree.firstNode) &+ 1]
                                let i0 = Self.value(n0, base) < n0.threshold * norm ? n0.left : n0.right
                                let i1 = Self.value(n1, base) < n1.threshold * norm ? n1.left : n1.right
                                stageSum += leaves[Int(tree.firstLeaf &- (i0 > 0 ? i1 : i0))]
                                continue
                            }
                            var index: Int32 = 0
                            repeat {
                                let node = nodes[Int(tree.firstNode &+ index)]
                                index = Self.value(node, base) < node.threshold * norm ? node.left : node.right
                            } while index > 0
                            stageSum += leaves[Int(tree.firstLeaf &- index)]
                        }
                        if stageSum < stage.threshold { accepted = false; break }
                    }
                    if accepted { hits.append((x, y)) }
                }
            }
        }}}}}
        if cancelled { throw CancellationError() }
        return hits
    }

    /// The weighted rectangle sum of `node`'s feature for the window whose integral-image origin is `base`.
    @inline(__always)
    static func value(_ node: PackedNode, _ base: UnsafePointer<Int32>) -> Float {
        let o = node.offsets
        let r0 = base[Int(o.3)] &- base[Int(o.1)] &- base[Int(o.2)] &+ base[Int(o.0)]
        let r1 = base[Int(o.7)] &- base[Int(o.5)] &- base[Int(o.6)] &+ base[Int(o.4)]
        let r2 = base[Int(o.11)] &- base[Int(o.9)] &- base[Int(o.10)] &+ base[Int(o.8)]
        return node.weights.0 * Float(r0) + node.weights.1 * Float(r1) + node.weights.2 * Float(r2)
    }
}
