import Testing
@testable import Imaging

@Suite("Grid max-flow", .timeLimit(.minutes(10)))
struct GraphCutTests {
    /// Random grid problem: terminal and 8-neighbour capacities from a seeded generator.
    struct Problem {
        var width: Int, height: Int
        var source: [Float], sink: [Float]
        /// (p, q, capacity) for each symmetric edge.
        var edges: [(Int, Int, Float)]

        init(seed: UInt64, width: Int, height: Int) {
            self.width = width; self.height = height
            var s = seed &* 2862933555777941757 &+ 3037000493
            func next() -> Float {
                s = s &* 6364136223846793005 &+ 1442695040888963407
                return Float(s >> 40 % 1000) / 100
            }
            source = (0..<(width * height)).map { _ in max(0, next() - 4) }
            sink = (0..<(width * height)).map { _ in max(0, next() - 4) }
            edges = []
            for y in 0..<height {
                for x in 0..<width {
                    for d in [0, 2, 4, 6] {
                        let qx = x + GridGraphCut.dx[d], qy = y + GridGraphCut.dy[d]
                        guard qx >= 0, qx < width, qy >= 0, qy < height else { continue }
                        edges.append((y * width + x, qy * width + qx, next() / 3))
                    }
                }
            }
        }
    }

    /// Reference max-flow by Edmonds–Karp on a dense matrix (small problems only).
    static func referenceFlow(_ p: Problem) -> Double {
        let n = p.width * p.height + 2, s = n - 2, t = n - 1
        var c = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for i in 0..<(n - 2) { c[s][i] += Double(p.source[i]); c[i][t] += Double(p.sink[i]) }
        for (a, b, w) in p.edges { c[a][b] += Double(w); c[b][a] += Double(w) }
        var flow = 0.0
        while true {
            var prev = [Int](repeating: -1, count: n)
            prev[s] = s
            var queue = [s], head = 0
            while head < queue.count, prev[t] < 0 {
                let u = queue[head]; head += 1
                for v in 0..<n where prev[v] < 0 && c[u][v] > 1e-9 { prev[v] = u; queue.append(v) }
            }
            if prev[t] < 0 { return flow }
            var bottleneck = Double.infinity
            var v = t
            while v != s { bottleneck = min(bottleneck, c[prev[v]][v]); v = prev[v] }
            v = t
            while v != s { c[prev[v]][v] -= bottleneck; c[v][prev[v]] += bottleneck; v = prev[v] }
            flow += bottleneck
        }
    }

    static func setTerminals(_ g: inout GridGraphCut, _ p: Problem) {
        for i in 0..<(p.width * p.height) {
            g.setTerminals(x: i % p.width, y: i / p.width, source: p.source[i], sink: p.sink[i])
        }
    }

    static func graph(_ p: Problem) -> GridGraphCut {
        var g = GridGraphCut(width: p.width, height: p.height)
        setTerminals(&g, p)
        for (a, b, w) in p.edges {
            let dx = b % p.width - a % p.width, dy = b / p.width - a / p.width
            let d = (0..<8).first { GridGraphCut.dx[$0] == dx && GridGraphCut.dy[$0] == dy }!
            g.setEdge(x: a % p.width, y: a / p.width, direction: d, capacity: w)
        }
        return g
    }

    /// Cost of the labelling the solver reports, on problem `p`.
    static func cutCost(_ g: GridGraphCut, _ p: Problem) -> Double {
        var cost = 0.0
        for i in 0..<(p.width * p.height) {
            let inS = g.isSource(x: i % p.width, y: i / p.width)
            cost += Double(inS ? p.sink[i] : p.source[i])
        }
        for (a, b, w) in p.edges
        where g.isSource(x: a % p.width, y: a / p.width) != g.isSource(x: b % p.width, y: b / p.width) {
            cost += Double(w)
        }
        return cost
    }

    @Test(arguments: 1...12)
    func maxFlowMatchesReferenceAndTheCutCostsTheFlow(seed: Int) throws {
        let p = Problem(seed: UInt64(seed), width: 4 + seed % 5, height: 3 + seed % 4)
        var g = Self.graph(p)
        let flow = Double(try g.maxFlow(on: .inTurn))
        let reference = Self.referenceFlow(p)
        #expect(abs(flow - reference) < 1e-3 * max(1, reference))
        // The labelling the solver reports is a cut whose cost equals the flow (so it is minimum).
        #expect(abs(Self.cutCost(g, p) - reference) < 1e-3 * max(1, reference))
    }

    /// Re-solving a solved graph with new terminal weights (GrabCut's later iterations) finds a minimum
    /// cut of the new weights, whichever way they moved: first with every pixel's two weights swapped
    /// (all the flow has to turn round, and the minimum cut is the complement), then with weights drawn
    /// independently of both (links shrink below the flow already through them).
    @Test(arguments: 1...12)
    func warmStartFindsTheMinimumCutOfTheNewTerminals(seed: Int) throws {
        let first = Problem(seed: UInt64(seed), width: 4 + seed % 5, height: 3 + seed % 4)
        var swapped = first
        swap(&swapped.source, &swapped.sink)
        var independent = Problem(seed: UInt64(seed + 100), width: first.width, height: first.height)
        independent.edges = first.edges
        var g = Self.graph(first)
        try g.maxFlow(on: .inTurn)
        let n = first.width * first.height
        let firstSides = (0..<n).map { g.isSource(x: $0 % first.width, y: $0 / first.width) }
        for p in [swapped, independent] {
            Self.setTerminals(&g, p)
            try g.maxFlow(on: .inTurn)
            let reference = Self.referenceFlow(p)
            #expect(abs(Self.cutCost(g, p) - reference) < 1e-3 * max(1, reference))
            if p.source == swapped.source {
                let sides = (0..<n).map { g.isSource(x: $0 % first.width, y: $0 / first.width) }
                #expect(sides == firstSides.map { !$0 })
            }
        }
    }
}
