/// What a motion source's first bytes say it is, before any library sees it.
enum MotionContainer: Equatable {
    case gif, webp, video

    /// `head`: at least the first 12 bytes when the source has them. HEIF/AVIF stills (ISO files with an image
    /// brand) are not motion sources.
    init?(sniffing head: some Collection<UInt8>) {
        let b = Array(head.prefix(16))
        func ascii(_ range: Range<Int>) -> String? {
            guard b.count >= range.upperBound else { return nil }
            return String(decoding: b[range], as: UTF8.self)
        }
        if ascii(0..<4) == "GIF8" { self = .gif; return }
        if ascii(0..<4) == "RIFF", ascii(8..<12) == "WEBP" { self = .webp; return }
        if b.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { self = .video; return }
        if ascii(4..<8) == "ftyp", let brand = ascii(8..<12) {
            let stills: Set<String> = ["heic", "heix", "heim", "heis", "mif1", "msf1", "avif", "avis", "hevc", "hevx", "avci"]
            if stills.contains(brand) { return nil }
            self = .video
            return
        }
        // QuickTime files older than ftyp start with one of these atoms.
        if let atom = ascii(4..<8), ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(atom) { self = .video; return }
        return nil
    }
}
