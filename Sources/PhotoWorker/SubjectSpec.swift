import JSONRPC
import Foundation
import Imaging
import JSONRPCTransport

/// `subject` on the wire: which subject a sticker is cut from (``SubjectPrompt``), in pixels of the photo as
/// displayed (after its EXIF orientation). One of
/// - `"all"`: every subject together;
/// - `{"point": [x, y]}`, optionally with `"exclude": [[x, y], ...]`;
/// - `{"points": [[x, y], ...], "exclude": [[x, y], ...]}`;
/// - `{"box": [x0, y0, x1, y1]}` (x1 > x0, y1 > y0; x1 and y1 exclusive).
/// The shape is checked when decoding; whether the points and box lie on the photo once it is decoded
/// (``validated(for:path:)``).
public struct SubjectSpec: Sendable, Decodable, Equatable {
    public var prompt: SubjectPrompt

    private enum Key: String, CodingKey { case point, points, exclude, box }

    public init(_ prompt: SubjectPrompt) { self.prompt = prompt }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let word = try? single.decode(String.self) {
            guard word == "all" else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                        debugDescription: "must be \"all\" or an object with point, points or box"))
            }
            prompt = .all
            return
        }
        let c = try decoder.container(keyedBy: Key.self)
        let given = [Key.point, .points, .box].filter { c.contains($0) }
        guard given.count == 1, let key = given.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "needs exactly one of \"point\", \"points\" or \"box\""))
        }
        func point(_ v: [Int], _ k: Key, _ index: Int?) throws -> PixelPoint {
            guard v.count == 2 else {
                let path = index.map { "\(k.stringValue)[\($0)]" } ?? k.stringValue
                throw DecodingError.dataCorruptedError(forKey: k, in: c, debugDescription: "\(path): a point is [x, y]")
            }
            return PixelPoint(x: v[0], y: v[1])
        }
        let exclude = try (c.decodeIfPresent([[Int]].self, forKey: .exclude) ?? []).enumerated()
            .map { try point($0.element, .exclude, $0.offset) }
        guard exclude.count <= Self.maxPoints else {
            throw DecodingError.dataCorruptedError(forKey: .exclude, in: c, debugDescription:
                "at most \(Self.maxPoints) points to exclude")
        }
        switch key {
        case .point:
            prompt = .points(include: [try point(try c.decode([Int].self, forKey: .point), .point, nil)], exclude: exclude)
        case .points:
            let include = try c.decode([[Int]].self, forKey: .points).enumerated().map { try point($0.element, .points, $0.offset) }
            guard !include.isEmpty, include.count <= Self.maxPoints else {
                throw DecodingError.dataCorruptedError(forKey: .points, in: c, debugDescription: "1 to \(Self.maxPoints) points")
            }
            prompt = .points(include: include, exclude: exclude)
        default:
            guard !c.contains(.exclude) else {
                throw DecodingError.dataCorruptedError(forKey: .exclude, in: c, debugDescription: "exclude goes with point or points")
            }
            let b = try c.decode([Int].self, forKey: .box)
            guard b.count == 4 else { throw DecodingError.dataCorruptedError(forKey: .box, in: c, debugDescription: "a box is [x0, y0, x1, y1]") }
            guard b[2] > b[0], b[3] > b[1] else {
                throw DecodingError.dataCorruptedError(forKey: .box, in: c, debugDescription: "the box has no area (x1 <= x0 or y1 <= y0)")
            }
            prompt = .box(PixelRect(x: b[0], y: b[1], width: b[2] - b[0], height: b[3] - b[1]))
        }
    }

    /// The prompt, once the photo's size is known.
    /// - Parameter path: where the spec sits in the params (`subject`, `subjects[2]`), for the error.
    /// - Throws: -32602 with `data.path` naming the point or box that does not lie on the photo.
    public func validated(for image: Image, path: String) throws -> SubjectPrompt {
        try validated(width: image.width, height: image.height, path: path)
    }

    /// The prompt, checked against a `width` x `height` picture (a clip's frame as displayed).
    /// - Throws: -32602 as ``validated(for:path:)``.
    public func validated(width: Int, height: Int, path: String) throws -> SubjectPrompt {
        do {
            try prompt.validate(width: width, height: height)
        } catch {
            throw RPCError.invalidParams(path: "\(path).\(error.path)", error.message)
        }
        return prompt
    }
}

extension SubjectSpec {
    /// Points to include, and to exclude, at most: stated once for the decoder and the schema.
    static let maxPoints = 256

    /// The shared schemas `Point`, `Subject` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("Point", #"""
            {
              "type": "array",
              "items": {"type": "integer"},
              "minItems": 2,
              "maxItems": 2,
              "description": "[x, y]: a pixel of the photo as displayed (after its EXIF orientation), x to the right, y down."
            }
            """#),
        ContractSchema("Subject", #"""
            {
              "description": "Which subject to cut out: `\"all\"` (every subject together), `{\"point\": [x, y]}`, `{\"points\": [[x, y], ...]}` (either with `\"exclude\": [[x, y], ...]`, parts not to keep), or `{\"box\": [x0, y0, x1, y1]}` (x1 > x0, y1 > y0, exclusive). Points and box are in pixels of the photo as displayed; a point off the photo or a box of no area is -32602 with `data.path` naming it. A point or box is evidence for the worker's own maps and graph cut, not a new model; a box under half the photo also has its own part mapped (two more network passes), and the subject under a point covering under 0.8 of the photo is cut again from its own part (one more pass, at a smaller size).",
              "oneOf": [
                {"type": "string", "enum": ["all"]},
                {
                  "type": "object",
                  "properties": {
                    "point": {"$ref": "#/components/schemas/Point"},
                    "exclude": {"type": "array", "items": {"$ref": "#/components/schemas/Point"}, "maxItems": \#(Self.maxPoints)}
                  },
                  "required": ["point"],
                  "additionalProperties": false
                },
                {
                  "type": "object",
                  "properties": {
                    "points": {
                      "type": "array",
                      "items": {"$ref": "#/components/schemas/Point"},
                      "minItems": 1,
                      "maxItems": \#(Self.maxPoints)
                    },
                    "exclude": {"type": "array", "items": {"$ref": "#/components/schemas/Point"}, "maxItems": \#(Self.maxPoints)}
                  },
                  "required": ["points"],
                  "additionalProperties": false
                },
                {
                  "type": "object",
                  "properties": {"box": {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4}},
                  "required": ["box"],
                  "additionalProperties": false
                }
              ]
            }
            """#),
    ]
}
