import Imaging

/// One palette colour on the wire: `{"hex":"#RRGGBB","rgb":[r,g,b],"fraction":0.31}`.
public struct PaletteEntry: Sendable, Codable, Equatable {
    public var hex: String
    public var rgb: [Int]
    public var fraction: Double

    init(_ c: PaletteColor) {
        hex = c.hex
        rgb = [Int(c.rgb.r), Int(c.rgb.g), Int(c.rgb.b)]
        fraction = (c.fraction * 10_000).rounded() / 10_000
    }

    var color: RGBA { RGBA(r: UInt8(rgb[0]), g: UInt8(rgb[1]), b: UInt8(rgb[2])) }
}
