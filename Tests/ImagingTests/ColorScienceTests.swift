import Testing
@testable import Imaging

@Suite(.timeLimit(.minutes(10))) struct ColorScienceTests {
    /// Pairs and expected ΔE00 from Sharma, Wu & Dalal (2005), Table 1.
    static let sharma: [((Double, Double, Double), (Double, Double, Double), Double)] = [
        ((50.0000, 2.6772, -79.7751), (50.0000, 0.0000, -82.7485), 2.0425),
        ((50.0000, 3.1571, -77.2803), (50.0000, 0.0000, -82.7485), 2.8615),
        ((50.0000, 2.8361, -74.0200), (50.0000, 0.0000, -82.7485), 3.4412),
        ((50.0000, -1.3802, -84.2814), (50.0000, 0.0000, -82.7485), 1.0000),
        ((50.0000, 0.0000, 0.0000), (50.0000, -1.0000, 2.0000), 2.3669),
        ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0009), 7.1792),
        ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0011), 7.2195),
        ((50.0000, 2.5000, 0.0000), (73.0000, 25.0000, -18.0000), 27.1492),
        ((50.0000, 2.5000, 0.0000), (50.0000, 3.2592, 0.3350), 1.0000),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((63.0109, -31.0961, -5.8663), (62.8187, -29.7946, -4.0864), 1.2630),
        ((35.0831, -44.1164, 3.7933), (35.0232, -40.0716, 1.5901), 1.8645),
        ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
        ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
    ]

    @Test func ciede2000MatchesSharmaReferenceData() {
        for (x, y, expected) in Self.sharma {
            #expect(abs(ColorScience.ciede2000(x, y) - expected) < 1e-4, "\(x) \(y)")
            #expect(abs(ColorScience.ciede2000(y, x) - expected) < 1e-4, "symmetry \(x) \(y)")
        }
        #expect(ColorScience.ciede2000((40, 10, -20), (40, 10, -20)) == 0)
    }

    @Test func labOfKnownColours() {
        let white = ColorScience.lab(fromSRGB: 255, 255, 255)
        #expect(abs(white.L - 100) < 0.01 && abs(white.a) < 0.01 && abs(white.b) < 0.01)
        let black = ColorScience.lab(fromSRGB: 0, 0, 0)
        #expect(black.L == 0 && black.a == 0 && black.b == 0)
        let red = ColorScience.lab(fromSRGB: 255, 0, 0) // reference: 53.24, 80.09, 67.20
        #expect(abs(red.L - 53.24) < 0.05 && abs(red.a - 80.09) < 0.05 && abs(red.b - 67.20) < 0.05)
    }

    @Test func srgbLabRoundTripIsExact() {
        for v in stride(from: 0, through: 255, by: 5) {
            for (r, g, b) in [(v, 0, 0), (0, v, 255 - v), (v, v, v), (255 - v, 128, v)] {
                let lab = ColorScience.lab(fromSRGB: UInt8(r), UInt8(g), UInt8(b))
                let back = ColorScience.srgb(fromLab: lab.L, lab.a, lab.b)
                #expect(Int(back.r) == r && Int(back.g) == g && Int(back.b) == b)
            }
        }
        let clipped = ColorScience.srgb(fromLab: 50, 300, -300) // far out of gamut: clipped, no trap
        #expect(clipped.g == 0)
    }
}

@Suite(.timeLimit(.minutes(10))) struct UniformLabTests {
    @Test func warpRoundTripsAndTracksCIEDE2000() {
        var ratios: [Double] = []
        for (L, a, b) in [(50.0, 0.0, 0.0), (20, 40, -30), (90, -5, 80), (3, 1, -1), (70, -60, 10), (35, 70, 60)] {
            let p = SIMD4(L, a, b, 0)
            let back = UniformLab.inverse(UniformLab.forward(p))
            #expect(abs(back.x - L) < 1e-6 && abs(back.y - a) < 1e-6 && abs(back.z - b) < 1e-6, "\(p) -> \(back)")
            // A small step: the warped Euclidean length is close to CIEDE2000's.
            for step in [SIMD4(1.0, 0, 0, 0), SIMD4(0, 1.0, 0, 0), SIMD4(0, 0, 1.0, 0)] {
                let q = p + step
                let warped = UniformLab.forward(q) - UniformLab.forward(p)
                let de = ColorScience.ciede2000((p.x, p.y, p.z), (q.x, q.y, q.z))
                ratios.append((warped * warped).sum().squareRoot() / de)
            }
        }
        #expect(ratios.allSatisfy { $0 > 0.6 && $0 < 1.6 }, "\(ratios)")
    }
}
