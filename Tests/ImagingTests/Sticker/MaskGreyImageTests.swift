import Testing
@testable import Imaging

@Suite("Mask as a grey image", .timeLimit(.minutes(10)))
struct MaskGreyImageTests {
    @Test("Every coverage value lands in R, G and B of an opaque pixel, and a lossless WebP keeps it")
    func exactValues() throws {
        let mask = Mask(width: 4, height: 2, values: [0, 1, 64, 127, 128, 200, 254, 255])
        let image = mask.greyImage
        #expect(image.width == 4 && image.height == 2)
        for (i, v) in mask.values.enumerated() {
            #expect(image[i % 4, i / 4] == RGBA(r: v, g: v, b: v, a: 255), "pixel \(i): \(image[i % 4, i / 4])")
        }
        let decoded = try ImageCodec.decode(try ImageCodec.encodeWebP(image, lossless: true), on: .inTurn).image
        #expect(decoded.pixels == image.pixels)
    }
}
