/// Recognises a format from its first bytes: PNG and GIF signatures, JPEG's SOI marker, RIFF/WEBP, and the
/// brands of an ISO-BMFF `ftyp` box (HEIF or AVIF).
enum FormatSniffer {
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// HEIF brands of HEVC-coded images.
    static let hevcBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]
    /// Brands of HEIF files whose primary image libheif decodes (HEVC and the generic image brands).
    static let heifBrands = hevcBrands.union(["mif1", "msf1", "miaf"])
    static let avifBrands: Set<String> = ["avif", "avis"]

    static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        if bytes.count >= 8 && bytes[0..<8].elementsEqual(pngSignature) { return .png }
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
        if bytes.count >= 6, ascii(bytes, 0, 6) == "GIF87a" || ascii(bytes, 0, 6) == "GIF89a" { return .gif }
        if bytes.count >= 12, ascii(bytes, 0, 4) == "RIFF", ascii(bytes, 8, 4) == "WEBP" { return .webp }
        return isobmff(bytes)
    }

    /// HEIF or AVIF from the `ftyp` box: the major brand, then the compatible ones. A file that names an AV1
    /// brand is AVIF unless its major brand is an HEVC one.
    private static func isobmff(_ bytes: [UInt8]) -> ImageFormat? {
        guard bytes.count >= 16, ascii(bytes, 4, 4) == "ftyp" else { return nil }
        let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(max(size, 16), bytes.count, 4096)
        let major = ascii(bytes, 8, 4)
        var brands = [major]
        var at = 16
        while at + 4 <= end {
            brands.append(ascii(bytes, at, 4))
            at += 4
        }
        if avifBrands.contains(major) { return .avif }
        if hevcBrands.contains(major) { return .heif }
        if brands.contains(where: avifBrands.contains) { return .avif }
        if brands.contains(where: heifBrands.contains) { return .heif }
        return nil
    }

    private static func ascii(_ bytes: [UInt8], _ at: Int, _ count: Int) -> String {
        String(decoding: bytes[at..<(at + count)], as: Unicode.ASCII.self)
    }
}
