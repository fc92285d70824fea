import Testing
@testable import Imaging

/// The one format table: what each format can do agrees with what the codecs do, and its extensions name it.
@Suite("Image formats", .timeLimit(.minutes(10)))
struct ImageFormatTests {
    @Test func theListsTheContractNamesComeFromTheTable() {
        #expect(ImageFormat.written == [.png, .jpeg, .webp], "\(ImageFormat.written)")
        #expect(ImageFormat.animated == [.apng, .webp, .gif, .webm], "\(ImageFormat.animated)")
        #expect(ImageFormat.read == [.png, .jpeg, .webp, .gif, .heif, .avif], "\(ImageFormat.read)")
    }

    @Test("every format the sniffer names is one the table says is decoded",
          arguments: [("formats/girl-lossy.webp"), ("formats/girl.gif"), ("formats/girl.heic"), ("formats/girl.avif"),
                      ("formats/girl-adobergb.jpg"), ("formats/coffee-adobergb.png")])
    func sniffedFormatsAreRead(_ name: String) throws {
        let format = try #require(ImageCodec.sniff(try CodecCorpus.bytes(name)), "\(name) is not recognised")
        #expect(format.can(.decodeStill), "\(name): \(format)")
    }

    @Test("every format written as a still encodes one, every other is refused", arguments: ImageFormat.allCases)
    func stillEncoding(_ format: ImageFormat) throws {
        var image = Image(width: 4, height: 4)
        image[1, 1] = RGBA(r: 200, g: 10, b: 10, a: 255)
        let bytes: [UInt8]? = switch format {
        case .png: try ImageCodec.encodePNG(image, compressionLevel: 6, on: .inTurn)
        case .jpeg: try ImageCodec.encodeJPEG(image, quality: 90, progressive: false)
        case .webp: try ImageCodec.encodeWebP(image, lossless: true, quality: 90)
        default: nil
        }
        #expect((bytes != nil) == format.can(.encodeStill), "\(format)")
        if let bytes { #expect(ImageCodec.sniff(bytes) == format, "\(format) sniffed as \(String(describing: ImageCodec.sniff(bytes)))") }
    }

    @Test("every format written animated makes an encoder, every other is refused", arguments: ImageFormat.allCases)
    func animatedEncoding(_ format: ImageFormat) throws {
        let settings = AnimationSettings(format: format, width: 16, height: 16)
        if format.can(.encodeAnimated) {
            let encoder = try settings.makeEncoder()
            #expect(encoder.format == format)
        } else {
            #expect(throws: ImagingError.self, "\(format)") { _ = try settings.makeEncoder() }
        }
    }

    @Test func anExtensionNamesTheFormatWrittenSo() {
        #expect(ImageFormat.named(byExtension: "png", writing: .encodeStill) == .png)
        #expect(ImageFormat.named(byExtension: "PNG", writing: .encodeAnimated) == .apng)
        #expect(ImageFormat.named(byExtension: "apng", writing: .encodeStill) == .apng, "named, though not a still")
        #expect(ImageFormat.named(byExtension: "jfif", writing: .encodeStill) == .jpeg)
        #expect(ImageFormat.named(byExtension: "heic", writing: .encodeStill) == .heif)
        #expect(ImageFormat.named(byExtension: "webm", writing: .encodeAnimated) == .webm)
        #expect(ImageFormat.named(byExtension: "tiff", writing: .encodeStill) == nil)
        #expect(ImageFormat.named(byExtension: "", writing: .encodeStill) == nil)
        for format in ImageFormat.allCases {
            #expect(ImageFormat.named(byExtension: format.fileExtension).contains(format), "\(format)")
            #expect(ImageFormat.foreignExtensions[format.fileExtension] == nil, "\(format)")
        }
    }
}
