/// An 8-bit RGBA raster with straight (non-premultiplied) alpha, stored row-major in one
/// contiguous buffer with no row padding.
///
/// `Image` is a value type: it is cheap to pass between tasks (the buffer is shared
/// copy-on-write) and is copied only when a holder mutates it, so concurrent stages can read the
/// same decoded photo without locks.
///
/// - Important: `pixels.count == width * height * 4` always holds.
public struct Image: Sendable, Equatable {
    /// Width in pixels (at least 1).
    public let width: Int
    /// Height in pixels (at least 1).
    public let height: Int
    /// RGBA8 samples, straight alpha, `width * 4` bytes per row.
    public var pixels: [UInt8]

    /// Wraps an existing RGBA buffer.
    /// - Precondition: `pixels.count == width * height * 4`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "image dimensions must be positive")
        precondition(pixels.count == width * height * 4, "pixel buffer does not match dimensions")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A new image filled with one colour.
    public init(width: Int, height: Int, fill: RGBA = RGBA(r: 0, g: 0, b: 0, a: 0)) {
        precondition(width > 0 && height > 0, "image dimensions must be positive")
        var buffer = [UInt8](repeating: 0, count: width * height * 4)
        if fill != RGBA(r: 0, g: 0, b: 0, a: 0) {
            buffer.withUnsafeMutableBufferPointer { p in
                var i = 0
                while i < p.count {
                    p[i] = fill.r; p[i + 1] = fill.g; p[i + 2] = fill.b; p[i + 3] = fill.a
                    i += 4
                }
            }
        }
        self.width = width
        self.height = height
        self.pixels = buffer
    }

    /// Bytes per row (`width * 4`).
    @inlinable public var rowBytes: Int { width * 4 }

    /// Number of pixels.
    @inlinable public var pixelCount: Int { width * height }

    /// The pixel at `(x, y)`; for tests and one-off reads, not for loops.
    public subscript(x: Int, y: Int) -> RGBA {
        get {
            let i = (y * width + x) * 4
            return RGBA(r: pixels[i], g: pixels[i + 1], b: pixels[i + 2], a: pixels[i + 3])
        }
        set {
            let i = (y * width + x) * 4
            pixels[i] = newValue.r; pixels[i + 1] = newValue.g
            pixels[i + 2] = newValue.b; pixels[i + 3] = newValue.a
        }
    }

    /// True when every pixel has alpha 255.
    public var isOpaque: Bool {
        pixels.withUnsafeBufferPointer { p in
            var i = 3
            while i < p.count {
                if p[i] != 255 { return false }
                i += 4
            }
            return true
        }
    }
}

/// One RGBA8 colour, straight alpha.
public struct RGBA: Sendable, Hashable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public var a: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    /// Parses `#RRGGBB` or `#RRGGBBAA` (the leading `#` is optional); nil when malformed.
    public init?(hex: String) {
        var s = Substring(hex)
        if s.hasPrefix("#") { s = s.dropFirst() }
        guard s.count == 6 || s.count == 8, let v = UInt32(s, radix: 16) else { return nil }
        if s.count == 6 {
            self.init(r: UInt8(v >> 16 & 0xFF), g: UInt8(v >> 8 & 0xFF), b: UInt8(v & 0xFF))
        } else {
            self.init(r: UInt8(v >> 24 & 0xFF), g: UInt8(v >> 16 & 0xFF), b: UInt8(v >> 8 & 0xFF), a: UInt8(v & 0xFF))
        }
    }

    /// `#RRGGBB` in upper case (alpha is not included).
    public var hex: String {
        let digits = Array("0123456789ABCDEF")
        var out = "#"
        for v in [r, g, b] {
            out.append(digits[Int(v >> 4)])
            out.append(digits[Int(v & 0xF)])
        }
        return out
    }
}
