import Foundation
import Testing
@testable import Imaging

/// What each file in corpus/broken is expected to do. The folder mixes truly corrupt files with
/// odd-but-valid ones collected from decoder bug reports; each entry says which and why.
enum BrokenExpectation: Sendable, CustomStringConvertible {
    /// Rejected with this kind of error, whose message contains the text.
    case rejected(Kind, String)
    /// Decodes (possibly with warnings): the file is valid, or libpng treats its fault as benign.
    case decodes(String)

    enum Kind: Sendable { case invalid, truncated, unknown }

    var description: String {
        switch self {
        case .rejected(let kind, let text): return "rejected \(kind): \(text)"
        case .decodes(let why): return "decodes: \(why)"
        }
    }
}

@Suite("Broken files", .timeLimit(.minutes(10)))
struct BrokenFileCodecTests {
    static let expectations: [String: BrokenExpectation] = [
        "pillow-broken.png": .rejected(.invalid, "invalid chunk type"),
        "pillow-broken_data_stream.png": .rejected(.invalid, "bad adaptive filter value"),
        "pillow-broken_exif_dpi.jpg": .decodes("valid JPEG whose EXIF resolution is nonsense; EXIF is ignored"),
        "pillow-decompression_bomb.gif": .rejected(.truncated, "image descriptor"),
        "pillow-png_decompression_dos.png": .decodes("1x1 image; its zTXt bombs are skipped unread"),
        "pillow-truncated_image.png": .rejected(.truncated, "unexpected end of data"),
        "pillow-truncated_jpeg.jpg": .rejected(.truncated, "Premature end of JPEG file"),
        "plants-1-really-png.jpg": .decodes("a valid PNG with a .jpg name; sniffed by content"),
        "pngfix-F-exif-chunk-early.png": .decodes("eXIf before IDAT ordering quirk; valid for libpng"),
        "pngfix-acid2.png": .decodes("valid 2x2 image from the acid2 set"),
        "pngfix-cicp_pq.png": .decodes("bad CRCs only on unknown ancillary chunks (cLLI, mDCV): warnings"),
        "pngfix-gama-srgb-order-issue-304.png": .decodes("gAMA/sRGB order quirk; gamma is not applied"),
        "pngfix-invalid_palette_index.png": .decodes("indices past the palette read as black, as in libpng"),
        "pngfix-issue-1825.png": .decodes("too-short iCCP is dropped with a warning"),
        "pngfix-issue-202.png": .decodes("valid image from an image-png bug report"),
        "pngfix-issue-403.png": .decodes("valid image from an image-png bug report"),
        "pngfix-issue-430.png": .decodes("bad iCCP CRC: ancillary chunk dropped with a warning"),
        "pngfix-large-text-chunks-issue-337.png": .decodes("large text chunks are skipped unread"),
        "pngfix-x_consecutive_idat.png": .rejected(.truncated, "Not enough image data"),
        "pngfix-x_ihdr_missing.png": .rejected(.invalid, "Missing IHDR"),
        "pngfix-x_image-issue-1075.png": .rejected(.truncated, "Not enough image data"),
        "pngfix-x_interlaced_chck.png": .rejected(.invalid, "CRC error"),
        "pngfix-x_issue-214.png": .rejected(.invalid, "width is zero"),
        "pngfix-x_issue-230.0.png": .rejected(.invalid, "out of range"),
        "pngfix-x_issue-230.1.png": .rejected(.invalid, "out of range"),
        "pngfix-x_unexpected_eof.png": .rejected(.invalid, "invalid chunk type"),
    ]

    /// The same fault in another release's words: the messages are the library's own, and libpng 1.6.48 (Debian 13)
    /// words a chunk type that is not four letters as a bad header.
    static let otherWordings: [String: [String]] = [
        "invalid chunk type": ["bad header (invalid type)"],
    ]

    @Test("every file in broken/ has a decided expectation")
    func everyFileCovered() {
        let files = CodecCorpus.files(in: "broken")
        #expect(!files.isEmpty)
        #expect(Set(files) == Set(Self.expectations.keys))
    }

    @Test("broken files fail with the expected error or decode as documented",
          arguments: expectations.keys.sorted())
    func brokenFile(_ file: String) throws {
        let bytes = try CodecCorpus.bytes("broken/" + file)
        let expectation = try #require(Self.expectations[file])
        switch expectation {
        case .decodes:
            let decoded = try ImageCodec.decode(bytes, on: .inTurn)
            #expect(decoded.image.pixelCount > 0)
            _ = try ImageCodec.info(bytes)
        case .rejected(let kind, let text):
            do {
                let decoded = try ImageCodec.decode(bytes, on: .inTurn)
                Issue.record("\(file) decoded to \(decoded.image.width)x\(decoded.image.height)")
            } catch let error as ImagingError {
                switch (kind, error) {
                case (.invalid, .invalidImage), (.truncated, .truncated), (.unknown, .unknownFormat): break
                default: Issue.record("\(file): expected \(kind), got \(error)")
                }
                let texts = [text] + (Self.otherWordings[text] ?? [])
                #expect(texts.contains { error.message.contains($0) }, "\(file): \(error.message)")
            }
        }
    }

    @Test("truncated broken files are returned when truncation is allowed",
          arguments: ["pillow-truncated_image.png", "pillow-truncated_jpeg.jpg"])
    func allowTruncated(_ file: String) throws {
        let decoded = try ImageCodec.decode(try CodecCorpus.bytes("broken/" + file),
                                            options: DecodeOptions(allowTruncated: true), on: .inTurn)
        #expect(decoded.warnings.contains { $0.contains("truncated") })
    }

    @Test("odd-but-valid files report libpng's warnings instead of printing them")
    func warningsCollected() throws {
        let decoded = try ImageCodec.decode(try CodecCorpus.bytes("broken/pngfix-cicp_pq.png"), on: .inTurn)
        #expect(decoded.warnings.contains { $0.contains("CRC error") })
    }

    /// Deterministic byte mutations (flips, truncations, splices) of small valid files: the decoder must
    /// return or throw `ImagingError`, never crash or hang. CODEC_MUTATION_ROUNDS raises the count for a
    /// longer run (e.g. under `--sanitize=address`).
    static let mutationRounds = ProcessInfo.processInfo.environment["CODEC_MUTATION_ROUNDS"].flatMap(Int.init) ?? 150

    @Test("mutated files never crash the decoder",
          arguments: ["pngsuite/basi6a16.png", "pngsuite/basn3p02.png", "photos/libjpeg-testorig.jpg",
                      "photos/pillow-hopper_gray.jpg", "photos/libjpeg-testimgari.jpg", "photos/pillow-pil_sample_cmyk.jpg",
                      "pngsuite/basi4a08.png", "pngsuite/tbbn3p08.png"])
    func mutations(_ file: String) throws {
        let outcomes = try decodeMutations(of: try CodecCorpus.bytes(file), rounds: Self.mutationRounds)
        #expect(outcomes.decoded + outcomes.rejected == Self.mutationRounds)
        #expect(outcomes.rejected > 0)
    }
}
