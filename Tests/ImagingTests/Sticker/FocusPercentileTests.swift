import Testing
@testable import Imaging

/// The focus cue's weighted percentiles by a radix sort give what the stable comparison sort gave: values with
/// ties (weights differing among them, so the order of equal values shows in the sums), -0 beside +0, negatives,
/// and a NaN (the comparison sort's fallback).
@Suite(.timeLimit(.minutes(10)))
struct FocusPercentileTests {
    /// The definition before the radix sort.
    static func reference(_ v: [Float], weights: [Float], low: Float, high: Float) -> (Float, Float) {
        var pairs = zip(v, weights).map { (value: $0, weight: $1) }
        pairs.sort { $0.value < $1.value }
        let total = pairs.reduce(Float(0)) { $0 + $1.weight }
        guard total > 0, let first = pairs.first, let last = pairs.last else { return (0, 0) }
        var acc: Float = 0
        var lo: Float? = nil
        for p in pairs {
            acc += p.weight
            if lo == nil && acc >= low * total { lo = p.value }
            if acc >= high * total { return (lo ?? p.value, p.value) }
        }
        return (lo ?? first.value, last.value)
    }

    @Test(arguments: [0, 1, 7, 1000, 154_000])
    func theRadixSortGivesTheStableSortsPercentiles(count: Int) {
        var state: UInt64 = UInt64(count) &+ 99
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        // A few hundred distinct values (many ties), signed, -0 and +0, weights spanning three decades.
        let v = (0..<count).map { i -> Float in
            let r = next() % 300
            if r == 0 { return i % 2 == 0 ? -0.0 : 0.0 }
            return (Float(r) - 150) / 37
        }
        let weights = (0..<count).map { _ in Float(next() % 1000 + 1) / Float(next() % 3 == 0 ? 1 : 1000) }
        let order = FocusFeatures.ascendingOrder(v)
        let stable = v.indices.sorted { v[$0] < v[$1] }
        #expect(order == stable, "\(count) values: the first differing position is \(order.indices.first { order[$0] != stable[$0] } ?? -1)")
        for (low, high) in [(Float(0.1), Float(0.9)), (0.5, 0.5), (0, 1)] {
            let got = FocusFeatures.percentiles(v, weights: weights, low: low, high: high)
            let expected = Self.reference(v, weights: weights, low: low, high: high)
            #expect(got == expected, "\(count) values, \(low)-\(high): \(got) against \(expected)")
        }
        var withNaN = v
        if count > 1 { withNaN[count / 2] = .nan }
        #expect(FocusFeatures.ascendingOrder(withNaN) == withNaN.indices.sorted { withNaN[$0] < withNaN[$1] })
    }
}
