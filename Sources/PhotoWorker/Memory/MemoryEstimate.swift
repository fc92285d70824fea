import Imaging

/// A job's peak memory from what can be known before it starts: each stage's term from the sizes its source's
/// header gives, in bytes. The coefficients are measured (one job alone in a fresh worker, its peak RSS less its RSS
/// once initialised: bench/memory_bench.py) and rounded up; bench/README.md compares every estimate with the peak.
///
/// What a term covers, per pixel of the source as decoded (`px`):
/// - the encoded bytes, which are read whole before decoding;
/// - the decode: RGBA at 4 bytes a pixel, and the codec's own planes (libheif's, for HEIC and AVIF);
/// - the stage's work: a resize's source and destination, a blur's float planes, a cut's maps, the encoder's buffers.
/// The network's weights and activation blocks are part of the constant of every method that runs it.
enum MemoryEstimate {
    static let mib = 1 << 20

    /// The facts an estimate starts from: the source's size as decoded, its format and its encoded bytes.
    struct Source: Sendable {
        var width: Int
        var height: Int
        var format: ImageFormat
        var encodedBytes: Int
        /// A progressive JPEG: libjpeg keeps every coefficient of the whole image, whatever the output scale.
        var isProgressive = false
        /// An embedded colour profile: the colour transform's tables.
        var hasProfile = false
        /// False for a guess from the encoded size, when the header could not be read.
        var fromHeader = true
        var pixels: Int { width * height }

        /// Sides and bytes are clamped (2^20 pixels a side, 2^40 bytes) so that no term can overflow: a header
        /// may declare anything, and a sparse file may be as large as the file system allows.
        init(width: Int, height: Int, format: ImageFormat, encodedBytes: Int) {
            self.width = min(max(1, width), 1 << 20)
            self.height = min(max(1, height), 1 << 20)
            self.format = format
            self.encodedBytes = min(max(0, encodedBytes), 1 << 40)
        }

        init(_ info: ImageInfo, encodedBytes: Int) {
            self.init(width: info.width, height: info.height, format: info.format, encodedBytes: encodedBytes)
            isProgressive = info.isProgressive
            hasProfile = info.iccProfileBytes > 0 || info.color != nil
        }

    }

    /// What a full-size decode leaves held: the encoded bytes (read whole first) and the RGBA image.
    static func decode(_ s: Source) -> Int { s.encodedBytes + s.pixels * 4 }

    /// What a decode needs only while it runs, freed before the next stage: libheif's planes (and dav1d's pools
    /// for AVIF), PNG's rows, libwebp's, a progressive JPEG's coefficients, a profile's transform tables. A job's
    /// peak has either this or its own work on top of the decoded image, not both.
    static func decodeTransient(_ s: Source, pixels: Int? = nil) -> Int {
        let px = pixels ?? s.pixels
        let codec = switch s.format {
        case .avif: 16 * mib + px * 6
        case .heif: 8 * mib + px * 6
        case .png: px * 2
        case .webp: px
        default: 0
        }
        return codec + (s.isProgressive ? s.pixels * 3 : 0) + (s.hasProfile ? 4 * mib : 0)
    }

    /// The pixels of a decode shrunk for a small output (a thumbnail, a palette): JPEG decodes at down to an eighth
    /// of each side; other formats at full size.
    static func shrunkPixels(_ s: Source, toAtLeast side: Int) -> Int {
        guard s.format == .jpeg else { return s.pixels }
        var scale = 1
        while scale < 8, min(s.width, s.height) / (scale * 2) >= max(1, side) { scale *= 2 }
        return s.pixels / (scale * scale)
    }

    /// A thumbnail of `width` x `height`: the shrunk decode, then the resize's rows and the result, and its encoder.
    static func thumbnail(_ s: Source, width: Int, height: Int) -> Int {
        let out = min(max(1, width), 1 << 20) * min(max(1, height), 1 << 20)
        let px = shrunkPixels(s, toAtLeast: min(width, height))
        return 7 * mib + s.encodedBytes + px * 6 + max(decodeTransient(s, pixels: px), out * 8)
    }

    static func palette(_ s: Source) -> Int {
        let px = shrunkPixels(s, toAtLeast: 256)
        return 7 * mib + s.encodedBytes + px * 6 + decodeTransient(s, pixels: px)
    }

    /// A resize by `factor`: the decode, float rows and the resized image, and its encoder.
    static func scale(_ s: Source, factor: Double, output: ImageFormat) -> Int {
        let out = Int(min(Double(1 << 40), Double(s.pixels) * factor * factor))  // factor is checked: at most 64
        return 4 * mib + decode(s) + max(decodeTransient(s), max(s.pixels, out) * 8 + encode(pixels: out, as: output))
    }

    /// The decoded image written in another format.
    static func convert(_ s: Source, output: ImageFormat) -> Int {
        4 * mib + decode(s) + max(decodeTransient(s), encode(pixels: s.pixels, as: output))
    }

    /// Blur and the rest: the decode, float planes and the result, and its encoder.
    static func effect(_ s: Source, output: ImageFormat) -> Int {
        4 * mib + decode(s) + max(decodeTransient(s), s.pixels * 20 + encode(pixels: s.pixels, as: output))
    }

    /// An encoder's buffers. libwebp's take less a pixel the larger the image (measured, not derived: 60-95 bytes
    /// a pixel under half a megapixel, 35-43 at two, 18-20 at 24); PNG's filter rows and deflate output about 6;
    /// JPEG's about one.
    static func encode(pixels: Int, as format: ImageFormat) -> Int {
        switch format {
        case .webp:
            let first = min(pixels, 500_000), next = min(max(0, pixels - 500_000), 2_000_000)
            return first * 96 + next * 40 + max(0, pixels - 2_500_000) * 20
        case .jpeg:
            return 2 * mib + pixels
        default:
            return 4 * mib + pixels * 6
        }
    }

    /// A still sticker: the network (weights, activations), the maps at full size, the cut RGBA and its encoder. A
    /// small photo's peak is the network's (75-100 MiB measured, whatever the photo), a large one's the maps'.
    static func sticker(_ s: Source, segmenter: Segmenter) -> Int {
        switch segmenter {
        case .network: max(102 * mib, 75 * mib + decode(s) + max(decodeTransient(s), s.pixels * 6))
        case .classical: 10 * mib + decode(s) + max(decodeTransient(s), s.pixels * 5)
        }
    }

    /// Every subject found: the network, and the candidates' maps at a working size of a few megapixels.
    static func subjects(_ s: Source) -> Int {
        100 * mib + decode(s) + max(decodeTransient(s), min(s.pixels, 2_500_000) * 28)
    }

    /// A photo's sticker, thumbnail and palette.
    static func photo(_ s: Source, segmenter: Segmenter) -> Int { sticker(s, segmenter: segmenter) + 4 * mib }

    /// A clip cut into an animated sticker: the network, the decoder's frames and reference pool (about six frames
    /// of YUV and one RGBA at the source's size), the frames at working size waiting for their key frame with their
    /// motion fields (two a frame, at most two key intervals of them: 32 MiB at 512 px), the cut frames spooled until
    /// the subject's box is known, and the encoder; fitting to a messenger's limit keeps its attempts.
    static func animated(width: Int, height: Int, encodedBytes: Int, fitsTarget: Bool) -> Int {
        let px = max(1, width) * max(1, height)
        return 132 * mib + min(encodedBytes, 64 * mib) + px * 11 + (fitsTarget ? 56 * mib : 0)
    }

    /// The most children at once, up to `width`, whose ``batch(_:width:)`` estimate (with `plus`) fits `budget`; at
    /// least one (a batch whose single child does not fit is then refused as any job that could never fit).
    static func widthWithin(_ budget: Int?, children: [Int], width: Int, plus: Int = 0) -> Int {
        var width = max(1, width)
        guard let budget else { return width }
        while width > 1, batch(children, width: width) + plus > budget { width -= 1 }
        return width
    }

    /// Children run `width` at a time: the largest `width` children's estimates together, a tenth more for what
    /// the allocator keeps between children, and a little per child for its result.
    static func batch(_ children: [Int], width: Int) -> Int {
        let largest = children.sorted(by: >).prefix(max(1, width)).reduce(0, +)
        return largest + largest / 10 + 16 * mib + children.count * 64 * 1024
    }
}
