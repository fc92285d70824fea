import JSONRPC

/// One of `photos.process`'s or `pack.export`'s `sources`: a ``ImageSource`` (`{"path"}`, `{"data"}` or `{"url"}`),
/// and for a Live Photo its clip beside it as `motion` (`{"path": "IMG_1234.HEIC", "motion": {"path":
/// "IMG_1234.MOV"}}`). A still path without `motion` is paired with a clip of its name by ``LivePhotoPairing``.
struct BatchSource: Decodable, Sendable {
    var source: ImageSource
    /// A Live Photo's clip, as given.
    var motion: ImageSource?

    private enum Key: String, CodingKey { case motion }

    init(_ source: ImageSource, motion: ImageSource? = nil) {
        self.source = source
        self.motion = motion
    }

    init(from decoder: any Decoder) throws {
        // The source's own keys are read by ImageSource (which looks only at path, data and url).
        source = try ImageSource(from: decoder)
        motion = try decoder.container(keyedBy: Key.self).decodeIfPresent(ImageSource.self, forKey: .motion)
    }
}

extension BatchSource {
    /// `BatchSource`, the schema of each of `photos.process`'s and `pack.export`'s `sources`.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("BatchSource", #"""
            {
              "description": "A source of a batch: exactly one of a file path, inline base64 bytes, or an http(s) URL, as Source; for a Live Photo, its clip as `motion` beside its still (a still path ending .heic, .heif, .jpg or .jpeg without one is paired with the clip of its name in its folder, .mov or .mp4 in any case).",
              "oneOf": [
                {
                  "type": "object",
                  "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "motion": {"$ref": "#/components/schemas/Source"}
                  },
                  "required": ["path"],
                  "additionalProperties": false
                },
                {
                  "type": "object",
                  "properties": {
                    "data": {"type": "string", "minLength": 1, "contentEncoding": "base64"},
                    "motion": {"$ref": "#/components/schemas/Source"}
                  },
                  "required": ["data"],
                  "additionalProperties": false
                },
                {
                  "type": "object",
                  "properties": {
                    "url": {"type": "string", "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://"},
                    "motion": {"$ref": "#/components/schemas/Source"}
                  },
                  "required": ["url"],
                  "additionalProperties": false
                }
              ]
            }
            """#),
    ]
}
