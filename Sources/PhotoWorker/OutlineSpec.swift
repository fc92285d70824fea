import JSONRPC
import Imaging

/// The sticker border: `{"width": px, "color": "#FFFFFF"}`.
public struct OutlineSpec: Sendable, Decodable {
    public var width: Int
    public var color: RGBA

    private enum Key: String, CodingKey { case width, color }

    public init(width: Int, color: RGBA = RGBA(r: 255, g: 255, b: 255)) {
        self.width = width
        self.color = color
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        width = try c.decodeIfPresent(Int.self, forKey: .width) ?? 8
        guard (0...200).contains(width) else {
            throw DecodingError.dataCorruptedError(forKey: .width, in: c, debugDescription: "must be between 0 and 200")
        }
        let hex = try c.decodeIfPresent(String.self, forKey: .color) ?? "#FFFFFF"
        guard let rgba = RGBA(hex: hex) else {
            throw DecodingError.dataCorruptedError(forKey: .color, in: c, debugDescription: "must be #RRGGBB or #RRGGBBAA")
        }
        color = rgba
    }

    var stickerOptions: StickerOptions {
        StickerOptions(outlineWidth: width, outlineColor: color)
    }
}

extension OutlineSpec {
    /// The shared schema `Outline` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("Outline", #"""
            {
              "type": "object",
              "properties": {
                "width": {"type": "integer", "minimum": 0, "maximum": 200, "default": 8},
                "color": {"type": "string", "pattern": "^#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$", "default": "#FFFFFF"}
              },
              "required": [],
              "additionalProperties": false,
              "description": "The sticker border."
            }
            """#),
    ]
}
