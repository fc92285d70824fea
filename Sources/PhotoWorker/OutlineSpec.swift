import JSONRPC
import Imaging

/// The sticker border: `{"width": px, "color": "#FFFFFF"}`.
///
/// - Important: ``standard`` is the one default of every door that cuts a sticker (`image.sticker`,
///   `image.subjects`, `image.animatedSticker`, `photo.process`, `photos.process`, `pack.export`): an absent
///   `outline` and `{}` both mean it, and `{"width": 0}` means none. Each door reads it through ``orStandard(_:)``,
///   never a literal of its own, so the same photo or clip gets the same border whichever door it comes through.
public struct OutlineSpec: Sendable, Decodable {
    /// 8 px of white: the border WhatsApp's sticker guidelines recommend ("a 8px #FFFFFF stroke to the outside of
    /// each sticker", so it stands out on white, black, coloured and patterned chats), and what the app's
    /// photo.process gave from the start.
    public static let standard = OutlineSpec(width: widthRule.standard)
    // The schema says `standard.color` as its `color` default (`hex` has no alpha: the standard colour is opaque).

    /// `width` in pixels, stated once for the decoder and the schema.
    static let widthRule = NumberParam<Int>("width", 0...200, default: 8)

    /// The outline a request asked for, or the standard one when it said nothing.
    public static func orStandard(_ given: OutlineSpec?) -> OutlineSpec { given ?? standard }

    public var width: Int
    public var color: RGBA

    private enum Key: String, CodingKey { case width, color }

    public init(width: Int, color: RGBA = RGBA(r: 255, g: 255, b: 255)) {
        self.width = width
        self.color = color
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        width = try c.decodeIfPresent(Int.self, forKey: .width) ?? Self.standard.width
        guard Self.widthRule.contains(width) else {
            throw DecodingError.dataCorruptedError(forKey: .width, in: c, debugDescription: Self.widthRule.message)
        }
        if let hex = try c.decodeIfPresent(String.self, forKey: .color) {
            guard let rgba = RGBA(hex: hex) else {
                throw DecodingError.dataCorruptedError(forKey: .color, in: c, debugDescription: "must be #RRGGBB or #RRGGBBAA")
            }
            color = rgba
        } else {
            color = Self.standard.color
        }
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
                "width": \#(Self.widthRule.schema()),
                "color": {"type": "string", "pattern": "^#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$", "default": "\#(Self.standard.color.hex)"}
              },
              "required": [],
              "additionalProperties": false,
              "description": "The sticker border. Absent, every method that cuts a sticker draws the same one: \#(Self.standard.width) px of white (WhatsApp's recommended stroke, so a sticker stands out on any chat background); {\"width\": 0} for none."
            }
            """#),
    ]
}
