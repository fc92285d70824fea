import CKernels
@testable import Inference
import Testing

/// A doubling's rows are interpolated without gathering, to the values the general taps give.
@Suite(.timeLimit(.minutes(10)))
struct BilinearTapsTests {
    @Test(arguments: [2, 3, 5, 10, 20, 40, 80, 160])
    func aDoublingInterpolatesAsTheGeneralTaps(source: Int) {
        let taps = BilinearTaps(count: 2 * source, source: source)
        #expect(taps.doubles, "the taps of \(source) -> \(2 * source) are a doubling's")
        let row = ConvolutionTests.values(source, seed: UInt64(source)).map { $0 * 100 }
        var doubled = [Float](repeating: .nan, count: 2 * source), general = doubled
        taps.interpolate(row, into: &doubled)
        ck_bilinear_row(row, taps.first, taps.second, taps.weight, 2 * source, &general)
        let differing = zip(doubled, general).filter { $0.bitPattern != $1.bitPattern }.count
        #expect(differing == 0, "\(source) -> \(2 * source): \(differing) differ; doubled \(doubled.prefix(6)), general \(general.prefix(6))")
    }

    @Test(arguments: [(1, 2), (5, 9), (5, 11), (10, 10), (20, 10)])
    func otherRatiosAreNoDoubling(sizes: (Int, Int)) {
        #expect(!BilinearTaps(count: sizes.1, source: sizes.0).doubles, "\(sizes.0) -> \(sizes.1)")
    }
}
