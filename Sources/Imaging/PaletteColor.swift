/// One colour of a palette and the share of the (counted) pixels closest to it.
///
/// Encodes as `{"hex": "#RRGGBB", "fraction": 0.42}`.
public struct PaletteColor: Sendable, Equatable, Codable {
    /// The colour (always opaque).
    public var rgb: RGBA
    /// Share of the non-transparent pixels whose nearest palette colour this is, in 0...1.
    public var fraction: Double

    public init(rgb: RGBA, fraction: Double) {
        self.rgb = rgb
        self.fraction = fraction
    }

    /// `#RRGGBB`, upper case.
    public var hex: String { rgb.hex }

    private enum CodingKeys: String, CodingKey { case hex, fraction }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let hex = try c.decode(String.self, forKey: .hex)
        guard let rgb = RGBA(hex: hex) else {
            throw DecodingError.dataCorruptedError(forKey: .hex, in: c, debugDescription: "not a #RRGGBB colour")
        }
        self.rgb = rgb
        self.fraction = try c.decode(Double.self, forKey: .fraction)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(hex, forKey: .hex)
        try c.encode(fraction, forKey: .fraction)
    }
}

/// Why ``PaletteExtractor`` refused a request. Cancellation is reported as `CancellationError`.
public enum PaletteError: Error, Sendable, Equatable {
    /// `count` is outside ``PaletteExtractor/supportedCounts``.
    case invalidCount(Int)
}
