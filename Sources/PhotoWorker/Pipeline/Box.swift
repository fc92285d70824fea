import Imaging

/// A rectangle on the wire.
public struct Box: Sendable, Codable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int
    init(_ r: PixelRect) {
        x = r.x; y = r.y; width = r.width; height = r.height
    }
}
