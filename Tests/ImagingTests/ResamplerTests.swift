import Deadlines
import Testing
@testable import Imaging

@Suite(.timeLimit(.minutes(10))) struct ResamplerTests {
    /// Deterministic pseudo-random opaque image.
    static func noise(width: Int, height: Int, seed: UInt64 = 1) -> Image {
        var rng = SplitMix64(seed: seed)
        var px = [UInt8](repeating: 255, count: width * height * 4)
        for i in 0..<(width * height) {
            let v = rng.next()
            px[i * 4] = UInt8(v & 0xFF); px[i * 4 + 1] = UInt8(v >> 8 & 0xFF); px[i * 4 + 2] = UInt8(v >> 16 & 0xFF)
        }
        return Image(width: width, height: height, pixels: px)
    }

    static func checkerboard(width: Int, height: Int, cell: Int = 1) -> Image {
        var image = Image(width: width, height: height, fill: RGBA(r: 0, g: 0, b: 0))
        for y in 0..<height {
            for x in 0..<width where ((x / cell) + (y / cell)) % 2 == 0 {
                image[x, y] = RGBA(r: 255, g: 255, b: 255)
            }
        }
        return image
    }

    @Test(arguments: ResampleFilter.allCases, [(37, 23), (1, 1), (200, 90), (512, 3)])
    func exactSizeAndConstantStaysConstant(filter: ResampleFilter, size: (Int, Int)) throws {
        let colour = RGBA(r: 12, g: 200, b: 99, a: 170)
        let image = Image(width: 97, height: 61, fill: colour)
        let out = try Resampler.resize(image, width: size.0, height: size.1, filter: filter, on: .inTurn)
        #expect(out.width == size.0 && out.height == size.1)
        #expect(out == Image(width: size.0, height: size.1, fill: colour))
    }

    @Test func checkerboardDownscaleAveragesToGrey() throws {
        let out = try Resampler.resize(Self.checkerboard(width: 300, height: 200), width: 75, height: 50, on: .inTurn)
        var lo = 255, hi = 0
        for y in 0..<out.height { for x in 0..<out.width { lo = min(lo, Int(out[x, y].g)); hi = max(hi, Int(out[x, y].g)) } }
        // Mean of 0 and 255 (in sRGB values; the resampler filters stored values, like Pillow).
        #expect(lo >= 125 && hi <= 130)
    }

    @Test func transparentNeighboursDoNotDarkenEdges() throws {
        // Left half opaque red, right half fully transparent *black*: without premultiplication
        // the black would bleed in and the edge pixels would turn dark red.
        var image = Image(width: 64, height: 8, fill: RGBA(r: 0, g: 0, b: 0, a: 0))
        for y in 0..<8 { for x in 0..<32 { image[x, y] = RGBA(r: 255, g: 0, b: 0) } }
        for filter in ResampleFilter.allCases {
            let out = try Resampler.resize(image, width: 24, height: 3, filter: filter, on: .inTurn)
            for x in 0..<24 {
                let p = out[x, 1]
                if p.a > 0 { #expect(p.r == 255 && p.g == 0 && p.b == 0, "filter \(filter) x \(x): \(p)") }
            }
            // The edge (source x 32 = output x 12) is blended by every kernel wider than a box.
            if filter != .box { #expect(out[11, 1].a > 0 && out[11, 1].a < 255 || out[12, 1].a > 0 && out[12, 1].a < 255) }
        }
    }

    @Test func upscaleInterpolatesSmoothly() throws {
        // A 2x1 black/white image scaled up: monotone ramp, ends keep their colours.
        var image = Image(width: 2, height: 1, fill: RGBA(r: 0, g: 0, b: 0))
        image[1, 0] = RGBA(r: 255, g: 255, b: 255)
        let out = try Resampler.resize(image, width: 20, height: 4, filter: .bilinear, on: .inTurn)
        let row = (0..<20).map { Int(out[$0, 2].r) }
        #expect(row.first == 0 && row.last == 255)
        #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 })
        let lanczos = try Resampler.resize(Self.noise(width: 16, height: 12), width: 64, height: 48, on: .inTurn)
        #expect(lanczos.width == 64 && lanczos.height == 48 && lanczos.isOpaque)
    }

    @Test func downscaleKeepsLowFrequencies() throws {
        // A horizontal ramp survives a 4x downscale: each output pixel ~ mean of its source span.
        var image = Image(width: 256, height: 16)
        for y in 0..<16 { for x in 0..<256 { image[x, y] = RGBA(r: UInt8(x), g: UInt8(x), b: UInt8(x)) } }
        let out = try Resampler.resize(image, width: 64, height: 4, on: .inTurn)
        for x in 2..<62 { #expect(abs(Int(out[x, 2].r) - (x * 4 + 1)) <= 1, "x \(x): \(out[x, 2].r)") }
    }

    @Test func sameSizeIsIdentityAndSubRectangleMatchesCrop() throws {
        let image = Self.noise(width: 40, height: 30)
        #expect(try Resampler.resize(image, width: 40, height: 30, on: .inTurn) == image)
        // A 1:1 copy of a sub-rectangle is exactly the crop.
        let sub = try Resampler.resize(image, sourceX: 5, sourceY: 7, sourceWidth: 20, sourceHeight: 10,
                                       width: 20, height: 10, filter: .box, on: .inTurn)
        #expect(sub == Compositing.crop(image, x: 5, y: 7, width: 20, height: 10))
    }

    @Test func invalidRequestsThrowTypedErrors() {
        let image = Image(width: 4, height: 4)
        #expect(throws: ResampleError.invalidTargetSize(width: 0, height: 5)) {
            try Resampler.resize(image, width: 0, height: 5, on: .inTurn)
        }
        #expect(throws: ResampleError.invalidTargetSize(width: 1 << 40, height: 5)) {
            try Resampler.resize(image, width: 1 << 40, height: 5, on: .inTurn)
        }
        #expect(throws: ResampleError.invalidTargetSize(width: 20_000, height: 20_000)) {
            try Resampler.resize(image, width: 20_000, height: 20_000, on: .inTurn)
        }
        // A 1-pixel-wide, 1M-pixel-tall strip stretched to 30000 x 1: the intermediate would be
        // 30000 x 1M floats; refused instead of trapping on allocation.
        let strip = Image(width: 1, height: 1_000_000)
        #expect(throws: ResampleError.invalidTargetSize(width: 30_000, height: 1)) {
            try Resampler.resize(strip, width: 30_000, height: 1, on: .inTurn)
        }
        #expect(throws: ResampleError.sourceTooLarge(width: 1, height: 2_000_000)) {
            try Resampler.resize(Image(width: 1, height: 2_000_000), width: 1, height: 1, on: .inTurn)
        }
        #expect(throws: ResampleError.invalidSourceRect(x: 2, y: 0, width: 3, height: 4)) {
            try Resampler.resize(image, sourceX: 2, sourceY: 0, sourceWidth: 3, sourceHeight: 4, width: 2, height: 2, on: .inTurn)
        }
        #expect(throws: ResampleError.invalidSourceRect(x: Int.max, y: 0, width: 1, height: 1)) {
            try Resampler.resize(image, sourceX: Int.max, sourceY: 0, sourceWidth: 1, sourceHeight: 1, width: 2, height: 2, on: .inTurn)
        }
    }

    @Test func cancellationIsHonoured() async {
        let image = Self.noise(width: 600, height: 400)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try Resampler.resize(image, width: 300, height: 200, on: .inTurn)
        }
        await #expect(throws: CancellationError.self) { try await Deadline.value(of: task, "the cancelled resample to end") }
    }
}
