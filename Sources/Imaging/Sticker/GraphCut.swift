import Compute

/// Minimum s-t cut of an 8-connected pixel grid by the Boykov–Kolmogorov max-flow algorithm
/// ("An Experimental Comparison of Min-Cut/Max-Flow Algorithms", PAMI 2004), with the timestamp /
/// distance heuristic of Kolmogorov's maxflow-v3 for cheap origin checks during adoption.
///
/// The grid is specialised rather than a general graph: every node has eight neighbour slots addressed
/// by direction, and the reverse of direction `d` is `d ^ 1`, so residual capacities live in one flat
/// array and no edge list is needed. The grid carries a one-pixel frame of dead nodes (no capacity)
/// so neighbour indexing never needs a bounds test.
///
/// Usage: set terminal weights and neighbour capacities, call `maxFlow()`, then ask `isSource(_:)`.
///
/// A solved graph can be solved again with new terminal weights (the neighbour capacities unchanged):
/// call `setTerminals` for every pixel and `maxFlow()` again. The solver then starts from the previous
/// flow (Kohli & Torr, "Dynamic Graph Cuts", PAMI 2007): the flow already on the neighbour links stays,
/// and each pixel's residual terminal capacity moves by the change of its net terminal weight. Adding
/// the same amount to both terminal links of a pixel changes every cut by that amount, so only the net
/// weight matters and any change can be absorbed; the minimum cut found is that of the new weights, and
/// only the difference has to be pushed.
struct GridGraphCut {
    let width: Int
    let height: Int
    /// Padded row length.
    private let stride: Int
    /// Residual capacity from node to its neighbour in direction d, at `node * 8 + d`.
    private var cap: [Float]
    /// Residual terminal capacity: > 0 towards the source, < 0 towards the sink.
    private var terminal: [Float]
    /// 0 free, 1 source tree, 2 sink tree (after `maxFlow`: 1 = source side of the minimum cut).
    private var tree: [UInt8]
    /// Net terminal weight (source − sink) each node was last given, so a re-solve can apply the change.
    private var net: [Float]
    /// Flow already pushed (terminal capacity cancelled at construction plus augmentations). Only the
    /// first solve's value is the minimum cut's cost; after a warm start it is not maintained.
    private(set) var flow: Float = 0

    /// Direction vectors; `d ^ 1` is the opposite of `d`.
    static let dx = [1, -1, 0, 0, 1, -1, -1, 1]
    static let dy = [0, 0, 1, -1, 1, -1, 1, -1]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        self.stride = width + 2
        let n = (width + 2) * (height + 2)
        cap = [Float](repeating: 0, count: n * 8)
        terminal = [Float](repeating: 0, count: n)
        net = [Float](repeating: 0, count: n)
        tree = [UInt8](repeating: 0, count: n)
    }

    @inline(__always) private func node(_ x: Int, _ y: Int) -> Int { (y + 1) * stride + x + 1 }

    /// Sets the cost of putting pixel `(x, y)` on the sink side (`source`, paid by cutting the source
    /// link) and on the source side (`sink`). Both must be ≥ 0. Call once per pixel, before each solve.
    mutating func setTerminals(x: Int, y: Int, source: Float, sink: Float) {
        let p = node(x, y)
        // On a fresh graph `terminal` and `net` are 0; on a solved one this is the warm start.
        terminal[p] += (source - sink) - net[p]
        net[p] = source - sink
        flow += min(source, sink)
    }

    /// Sets a symmetric capacity `c` (≥ 0) between `(x, y)` and its neighbour in direction `d`.
    /// The neighbour must lie inside the grid.
    mutating func setEdge(x: Int, y: Int, direction d: Int, capacity c: Float) {
        let p = node(x, y)
        let q = node(x + GridGraphCut.dx[d], y + GridGraphCut.dy[d])
        cap[p * 8 + d] = c
        cap[q * 8 + (d ^ 1)] = c
    }

    /// True when pixel `(x, y)` is on the source side of the minimum cut (valid after `maxFlow`).
    func isSource(x: Int, y: Int) -> Bool { tree[node(x, y)] == 1 }

    /// Runs the solver to completion and returns the maximum flow (= the minimum cut's cost).
    /// - Throws: `CancellationError` when the current task is cancelled (checked every few thousand steps).
    @discardableResult
    mutating func maxFlow(on loop: some ParallelLoop) throws -> Float {
        let n = (width + 2) * (height + 2)
        let s = stride
        let offsets = [1, -1, s, -s, s + 1, -s - 1, s - 1, -s + 1]
        var pushed: Float = 0
        try cap.withUnsafeMutableBufferPointer { cap in
            try terminal.withUnsafeMutableBufferPointer { tr in
                try tree.withUnsafeMutableBufferPointer { tree in
                    try offsets.withUnsafeBufferPointer { off in
                        var solver = BKSolver(count: n, cap: cap, tr: tr, tree: tree, off: off)
                        defer { solver.deallocate() }
                        pushed = try solver.run(on: loop)
                    }
                }
            }
        }
        flow += pushed
        return flow
    }
}

/// Working state of one Boykov–Kolmogorov run over borrowed buffers. All scratch storage is owned by
/// the run and freed by `deallocate()`.
private struct BKSolver {
    static let free: UInt8 = 0, source: UInt8 = 1, sink: UInt8 = 2
    /// Parent codes: 0..7 = direction to the parent node.
    static let terminalParent: UInt8 = 8, orphanParent: UInt8 = 9, noParent: UInt8 = 10

    let cap: UnsafeMutableBufferPointer<Float>
    let tr: UnsafeMutableBufferPointer<Float>
    let tree: UnsafeMutableBufferPointer<UInt8>
    let off: UnsafeBufferPointer<Int>
    let parent: UnsafeMutableBufferPointer<UInt8>
    let ts: UnsafeMutableBufferPointer<Int32>
    let dist: UnsafeMutableBufferPointer<Int32>
    let inQueue: UnsafeMutableBufferPointer<Bool>
    /// Ring buffers; each node is in a ring at most once, so `count` slots suffice.
    let active: UnsafeMutableBufferPointer<Int32>
    let orphans: UnsafeMutableBufferPointer<Int32>
    var activeHead = 0, activeCount = 0
    var orphanHead = 0, orphanCount = 0
    var time: Int32 = 0

    init(count n: Int, cap: UnsafeMutableBufferPointer<Float>, tr: UnsafeMutableBufferPointer<Float>,
         tree: UnsafeMutableBufferPointer<UInt8>, off: UnsafeBufferPointer<Int>) {
        self.cap = cap; self.tr = tr; self.tree = tree; self.off = off
        parent = .allocate(capacity: n); parent.initialize(repeating: BKSolver.noParent)
        ts = .allocate(capacity: n); ts.initialize(repeating: 0)
        dist = .allocate(capacity: n); dist.initialize(repeating: 0)
        inQueue = .allocate(capacity: n); inQueue.initialize(repeating: false)
        active = .allocate(capacity: n); active.initialize(repeating: 0)
        orphans = .allocate(capacity: n); orphans.initialize(repeating: 0)
    }

    func deallocate() {
        parent.deallocate(); ts.deallocate(); dist.deallocate(); inQueue.deallocate()
        active.deallocate(); orphans.deallocate()
    }

    @inline(__always) mutating func activate(_ p: Int) {
        if inQueue[p] { return }
        inQueue[p] = true
        // Conditional wrap rather than `%`: this runs once per node claimed, and a division costs more
        // than the rest of the call.
        var slot = activeHead + activeCount
        if slot >= active.count { slot -= active.count }
        active[slot] = Int32(p)
        activeCount += 1
    }

    @inline(__always) mutating func popActive() -> Int {
        if activeCount == 0 { return -1 }
        let p = Int(active[activeHead])
        activeHead += 1
        if activeHead == active.count { activeHead = 0 }
        activeCount -= 1
        return p
    }

    @inline(__always) mutating func makeOrphan(_ p: Int) {
        parent[p] = BKSolver.orphanParent
        var slot = orphanHead + orphanCount
        if slot >= orphans.count { slot -= orphans.count }
        orphans[slot] = Int32(p)
        orphanCount += 1
    }

    /// Pushes flow straight from every source-linked node to its sink-linked neighbours, saturating
    /// the smaller of the two terminal links or the edge between them. On a GrabCut grid nearly every
    /// node has a terminal link, so most of the flow goes along such two-node paths; sending it before
    /// any tree exists spares BK an augmentation plus an orphan adoption for each of them. The result
    /// is a feasible flow, and the source side of the minimum cut (the nodes reachable from the
    /// source in the residual graph) does not depend on how the maximum flow was reached.
    mutating func pushAcrossNeighbours() -> Float {
        var flow: Float = 0
        for p in 0..<tr.count where tr[p] > 0 {
            for d in 0..<8 {
                let c = cap[p &* 8 &+ d]
                guard c > 0 else { continue }
                let q = p &+ off[d]
                guard tr[q] < 0 else { continue }
                let amount = min(c, min(tr[p], -tr[q]))
                cap[p &* 8 &+ d] = c - amount
                cap[q &* 8 &+ (d ^ 1)] += amount
                tr[p] -= amount
                tr[q] += amount
                flow += amount
                if tr[p] <= 0 { break }
            }
        }
        return flow
    }

    mutating func run(on loop: some ParallelLoop) throws -> Float {
        let preflow = pushAcrossNeighbours()
        for p in 0..<tr.count {
            tree[p] = BKSolver.free
            if tr[p] > 0 {
                tree[p] = BKSolver.source; parent[p] = BKSolver.terminalParent; dist[p] = 1; activate(p)
            } else if tr[p] < 0 {
                tree[p] = BKSolver.sink; parent[p] = BKSolver.terminalParent; dist[p] = 1; activate(p)
            }
        }
        var flow: Float = 0
        var current = -1
        var steps = 0
        while true {
            steps &+= 1
            if steps & 4095 == 0 && loop.isCancelled { throw CancellationError() }
            var p = -1
            if current >= 0 {
                if tree[current] != BKSolver.free { p = current } else { inQueue[current] = false }
                current = -1
            }
            if p < 0 {
                p = popActive()
                if p < 0 { break }
                if tree[p] == BKSolver.free { inQueue[p] = false; continue }
            }
            // Growth: look for a free neighbour to claim or a node of the other tree to meet.
            var meet = -1, meetDir = -1
            if tree[p] == BKSolver.source {
                for d in 0..<8 where cap[p &* 8 &+ d] > 0 {
                    let q = p &+ off[d]
                    let t = tree[q]
                    if t == BKSolver.free {
                        tree[q] = BKSolver.source; parent[q] = UInt8(d ^ 1); ts[q] = ts[p]; dist[q] = dist[p] &+ 1
                        activate(q)
                    } else if t == BKSolver.sink {
                        meet = p; meetDir = d; break
                    } else if ts[q] <= ts[p] && dist[q] > dist[p] {
                        parent[q] = UInt8(d ^ 1); ts[q] = ts[p]; dist[q] = dist[p] &+ 1
                    }
                }
            } else {
                for d in 0..<8 {
                    let q = p &+ off[d]
                    guard cap[q &* 8 &+ (d ^ 1)] > 0 else { continue }
                    let t = tree[q]
                    if t == BKSolver.free {
                        tree[q] = BKSolver.sink; parent[q] = UInt8(d ^ 1); ts[q] = ts[p]; dist[q] = dist[p] &+ 1
                        activate(q)
                    } else if t == BKSolver.source {
                        meet = q; meetDir = d ^ 1; break
                    } else if ts[q] <= ts[p] && dist[q] > dist[p] {
                        parent[q] = UInt8(d ^ 1); ts[q] = ts[p]; dist[q] = dist[p] &+ 1
                    }
                }
            }
            time &+= 1
            if meet < 0 {
                inQueue[p] = false
                continue
            }
            // Keep p: it may have more paths to offer.
            current = p
            flow += augment(from: meet, direction: meetDir)
            while orphanCount > 0 {
                let o = Int(orphans[orphanHead])
                orphanHead += 1
                if orphanHead == orphans.count { orphanHead = 0 }
                orphanCount -= 1
                adopt(o)
            }
        }
        return flow + preflow
    }

    /// Pushes the bottleneck along source → `s` → (edge `d`) → `s + off[d]` → sink.
    mutating func augment(from s: Int, direction d: Int) -> Float {
        let t0 = s + off[d]
        var bottleneck = cap[s * 8 + d]
        var i = s
        while parent[i] != BKSolver.terminalParent {
            let a = Int(parent[i]); let j = i + off[a]
            bottleneck = min(bottleneck, cap[j * 8 + (a ^ 1)])
            i = j
        }
        bottleneck = min(bottleneck, tr[i])
        i = t0
        while parent[i] != BKSolver.terminalParent {
            let a = Int(parent[i])
            bottleneck = min(bottleneck, cap[i * 8 + a])
            i += off[a]
        }
        bottleneck = min(bottleneck, -tr[i])

        cap[s * 8 + d] -= bottleneck
        cap[t0 * 8 + (d ^ 1)] += bottleneck
        i = s
        while parent[i] != BKSolver.terminalParent {
            let a = Int(parent[i]); let j = i + off[a]
            cap[i * 8 + a] += bottleneck
            cap[j * 8 + (a ^ 1)] -= bottleneck
            if cap[j * 8 + (a ^ 1)] == 0 { makeOrphan(i) }
            i = j
        }
        tr[i] -= bottleneck
        if tr[i] == 0 { makeOrphan(i) }
        i = t0
        while parent[i] != BKSolver.terminalParent {
            let a = Int(parent[i]); let j = i + off[a]
            cap[j * 8 + (a ^ 1)] += bottleneck
            cap[i * 8 + a] -= bottleneck
            if cap[i * 8 + a] == 0 { makeOrphan(i) }
            i = j
        }
        tr[i] += bottleneck
        if tr[i] == 0 { makeOrphan(i) }
        return bottleneck
    }

    /// Finds `p` a new parent in its own tree whose chain still reaches the terminal, or frees it.
    mutating func adopt(_ p: Int) {
        let side = tree[p]
        let isSource = side == BKSolver.source
        var bestDir = -1
        var bestDist = Int32.max
        for d in 0..<8 {
            let q = p + off[d]
            guard tree[q] == side else { continue }
            // Residual capacity along the tree edge: q → p in the source tree, p → q in the sink tree.
            let residual = isSource ? cap[q * 8 + (d ^ 1)] : cap[p * 8 + d]
            guard residual > 0 else { continue }
            var j = q
            var length: Int32 = 0
            var valid = false
            while true {
                if ts[j] == time { length &+= dist[j]; valid = true; break }
                let a = parent[j]
                length &+= 1
                if a == BKSolver.terminalParent { ts[j] = time; dist[j] = 1; valid = true; break }
                if a == BKSolver.orphanParent || a == BKSolver.noParent { break }
                j += off[Int(a)]
            }
            guard valid else { continue }
            if length < bestDist { bestDist = length; bestDir = d }
            // Stamp the verified chain so later checks stop early.
            j = q
            var l = length
            while ts[j] != time { ts[j] = time; dist[j] = l; l -= 1; j += off[Int(parent[j])] }
        }
        if bestDir >= 0 {
            parent[p] = UInt8(bestDir); ts[p] = time; dist[p] = bestDist &+ 1
            return
        }
        tree[p] = BKSolver.free
        parent[p] = BKSolver.noParent
        for d in 0..<8 {
            let q = p + off[d]
            guard tree[q] == side else { continue }
            let residual = isSource ? cap[q * 8 + (d ^ 1)] : cap[p * 8 + d]
            if residual > 0 { activate(q) }
            if Int(parent[q]) == (d ^ 1) { makeOrphan(q) }
        }
    }
}
