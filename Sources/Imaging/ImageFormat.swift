/// An encoded image format the codecs understand. Always determined from magic bytes, never a file name.
public enum ImageFormat: String, Sendable, Codable {
    case png
    case jpeg
}
