import Compute
import Deadlines
import Testing
@testable import Imaging

@Suite(.timeLimit(.minutes(10))) struct ImageEffectTests {
    @Test func blurKeepsConstantImagesAndSpreadsAnImpulse() throws {
        let flat = Image(width: 33, height: 21, fill: RGBA(r: 10, g: 20, b: 30, a: 200))
        #expect(try flat.applying([.blur(radius: 4)], on: .inTurn) == flat)

        var dot = Image(width: 41, height: 41, fill: RGBA(r: 0, g: 0, b: 0))
        dot[20, 20] = RGBA(r: 255, g: 255, b: 255)
        let out = try dot.applying([.blur(radius: 3)], on: .inTurn)
        // Symmetric, peaked at the centre, decreasing outwards, energy preserved.
        #expect(out[20, 20].r > out[23, 20].r && out[23, 20].r > out[26, 20].r)
        #expect(out[17, 20] == out[23, 20] && out[20, 17] == out[20, 23])
        var total = 0
        for y in 0..<41 { for x in 0..<41 { total += Int(out[x, y].r) } }
        #expect(abs(total - 255) < 40) // rounding of many small values
        #expect(try dot.applying([.blur(radius: 0)], on: .inTurn) == dot)
    }

    @Test func boxRadiiApproximateTheRequestedSigma() {
        for sigma in [0.8, 2.0, 5.5, 20.0] {
            let radii = GaussianBlur.boxRadii(sigma: sigma)
            // Variance of a box of width 2r+1 is ((2r+1)^2 - 1) / 12; variances add.
            let variance = radii.reduce(0.0) { $0 + (Double((2 * $1 + 1) * (2 * $1 + 1)) - 1) / 12 }
            #expect(abs(variance.squareRoot() - sigma) < 0.35 * max(1, sigma / 4), "sigma \(sigma): \(radii)")
        }
    }

    @Test func blurDoesNotDarkenTransparentSurroundings() throws {
        var image = Image(width: 30, height: 30) // transparent black
        for y in 10..<20 { for x in 10..<20 { image[x, y] = RGBA(r: 255, g: 255, b: 0) } }
        let out = try image.applying([.blur(radius: 2)], on: .inTurn)
        for y in 0..<30 {
            for x in 0..<30 where out[x, y].a > 8 {
                #expect(out[x, y].r >= 250 && out[x, y].g >= 250 && out[x, y].b <= 5, "\(x),\(y) \(out[x, y])")
            }
        }
        #expect(out[8, 15].a > 0 && out[8, 15].a < 128)
    }

    @Test func opacityGrayscaleAndOrder() throws {
        let image = Image(width: 3, height: 2, fill: RGBA(r: 255, g: 0, b: 0, a: 200))
        #expect(try image.applying([.opacity(0.5)], on: .inTurn)[1, 1] == RGBA(r: 255, g: 0, b: 0, a: 100))
        #expect(try image.applying([.opacity(0)], on: .inTurn)[0, 0].a == 0)
        #expect(try image.applying([.opacity(1)], on: .inTurn) == image)
        #expect(try image.applying([.grayscale], on: .inTurn)[2, 1] == RGBA(r: 76, g: 76, b: 76, a: 200))
        let white = Image(width: 2, height: 2, fill: RGBA(r: 255, g: 255, b: 255))
        #expect(try white.applying([.grayscale], on: .inTurn) == white)
        let both = try image.applying([.grayscale, .opacity(0.5)], on: .inTurn)
        #expect(both == (try image.applying([.opacity(0.5), .grayscale], on: .inTurn)))
        #expect(try image.applying([], on: .inTurn) == image)
    }

    @Test func invalidParametersThrowBeforeAnyWork() {
        let image = Image(width: 2, height: 2)
        #expect(throws: ImageEffectError.invalidBlurRadius(-1)) { try image.applying([.grayscale, .blur(radius: -1)], on: .inTurn) }
        #expect(throws: ImageEffectError.invalidOpacity(1.5)) { try image.applying([.opacity(1.5)], on: .inTurn) }
        #expect(throws: ImageEffectError.self) { try image.applying([.opacity(.nan)], on: .inTurn) }
        #expect(throws: ImageEffectError.self) { try image.applying([.blur(radius: .infinity)], on: .inTurn) }
    }

    @Test func hugeRadiusIsBoundedAndSmooth() throws {
        var image = Image(width: 20, height: 10, fill: RGBA(r: 0, g: 0, b: 0))
        for y in 0..<10 { for x in 0..<10 { image[x, y] = RGBA(r: 200, g: 200, b: 200) } }
        let out = try image.applying([.blur(radius: 1e12)], on: .inTurn)
        // Clamped to the longest side: the 200-level step is flattened to a gentle slope
        // (edge extension keeps the ends slightly apart).
        #expect(abs(Int(out[0, 0].r) - Int(out[19, 9].r)) <= 30)
    }

    @Test func blurHonoursCancellation() async {
        let image = Image(width: 400, height: 300, fill: RGBA(r: 1, g: 2, b: 3))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try image.applying([.blur(radius: 5)], on: .inTurn)
        }
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled blur to end") }
    }

    /// The blur in one plane and strips of columns is the blur in two whole planes, float for float: strips
    /// narrower and wider than the image, widths that do not divide into strips, radii past the image.
    @Test(arguments: [(37, 23, 1.5), (5, 40, 3.0), (70, 9, 6.0), (64, 64, 40.0), (1, 1, 2.0), (33, 2, 0.7)])
    func theStripsAreTheWholePlanes(size: (Int, Int, Double)) throws {
        let (w, h, sigma) = size
        var random = SplitMix64(seed: UInt64(w * 1000 + h))
        let pixels = (0..<(w * h * 4)).map { i in UInt8(i % 4 == 3 ? (random.next() % 3 == 0 ? 0 : random.next() % 256) : random.next() % 256) }
        let image = Image(width: w, height: h, pixels: pixels)
        let got = try GaussianBlur.apply(image, sigma: sigma, on: .inTurn)
        let expected = Self.twoPlaneBlur(image, sigma: sigma)
        let differing = zip(got.pixels, expected.pixels).filter { $0 != $1 }.count
        #expect(differing == 0, "\(w)x\(h) sigma \(sigma): \(differing) of \(pixels.count) bytes differ")
    }

    /// The blur as it was made before the strips: horizontal boxes a -> b -> a -> b row by row, then vertical ones
    /// over whole planes b -> a -> b -> a.
    static func twoPlaneBlur(_ image: Image, sigma requested: Double) -> Image {
        let sigma = min(requested, Double(max(image.width, image.height)))
        let radii = GaussianBlur.boxRadii(sigma: sigma)
        let w = image.width, h = image.height
        var a = (0..<(w * h)).map { i -> SIMD4<Float> in
            let s = i * 4, alpha = Float(image.pixels[s + 3]), k = alpha * (1 / 255)
            return SIMD4(Float(image.pixels[s]) * k, Float(image.pixels[s + 1]) * k, Float(image.pixels[s + 2]) * k, alpha)
        }
        var b = a
        func line(_ src: [SIMD4<Float>], _ dst: inout [SIMD4<Float>], start: Int, r: Int) {
            let scale = 1 / Float(2 * r + 1)
            func at(_ i: Int) -> SIMD4<Float> { src[start + min(max(i, 0), w - 1)] }
            var sum = SIMD4<Float>.zero
            for j in -r...r { sum += at(j) }
            for i in 0..<w {
                dst[start + i] = sum * scale
                sum += at(i + r + 1) - at(i - r)
            }
        }
        func columns(_ src: [SIMD4<Float>], _ dst: inout [SIMD4<Float>], r: Int) {
            let scale = 1 / Float(2 * r + 1)
            var sums = [SIMD4<Float>](repeating: .zero, count: w)
            for j in -r...r { for x in 0..<w { sums[x] += src[min(max(j, 0), h - 1) * w + x] } }
            for y in 0..<h {
                let add = min(y + r + 1, h - 1) * w, sub = max(y - r, 0) * w
                for x in 0..<w {
                    dst[y * w + x] = sums[x] * scale
                    sums[x] += src[add + x] - src[sub + x]
                }
            }
        }
        for y in 0..<h {
            line(a, &b, start: y * w, r: radii[0])
            line(b, &a, start: y * w, r: radii[1])
            line(a, &b, start: y * w, r: radii[2])
        }
        columns(b, &a, r: radii[0])
        columns(a, &b, r: radii[1])
        columns(b, &a, r: radii[2])
        var out = [UInt8](repeating: 0, count: w * h * 4)
        out.withUnsafeMutableBufferPointer { dst in
            for i in 0..<(w * h) { Resampler.storeUnpremultiplied(a[i], into: dst, at: i * 4) }
        }
        return Image(width: w, height: h, pixels: out)
    }
}
