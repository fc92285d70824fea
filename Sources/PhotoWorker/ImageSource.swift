import JSONRPC
import Foundation

/// Where an image comes from: `{"path": ...}`, `{"data": "<base64>"}` or `{"url": "http(s)://..."}`.
public enum ImageSource: Sendable, Hashable, Decodable, CustomStringConvertible {
    case path(String)
    case data([UInt8])
    case url(URL)
    /// A URL the worker has already fetched (never decoded from a request): read as these bytes, described and
    /// cached as its URL, so a job that had to look at a URL's bytes before choosing its path does not fetch it twice.
    case fetched(URL, [UInt8])

    private enum Key: String, CodingKey { case path, data, url }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let present = c.allKeys
        guard present.count == 1, let key = present.first else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "a source needs exactly one of \"path\", \"data\" or \"url\""))
        }
        switch key {
        case .path:
            let p = try c.decode(String.self, forKey: .path)
            guard !p.isEmpty else {
                throw DecodingError.dataCorruptedError(forKey: .path, in: c, debugDescription: "path is empty")
            }
            self = .path(p)
        case .data:
            let s = try c.decode(String.self, forKey: .data)
            guard let d = Data(base64Encoded: s, options: .ignoreUnknownCharacters), !d.isEmpty else {
                throw DecodingError.dataCorruptedError(forKey: .data, in: c, debugDescription: "data is not valid non-empty base64")
            }
            self = .data(Array(d))
        case .url:
            let s = try c.decode(String.self, forKey: .url)
            guard let u = URL(string: s), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https", u.host != nil else {
                throw DecodingError.dataCorruptedError(forKey: .url, in: c, debugDescription: "only absolute http and https URLs are accepted")
            }
            self = .url(u)
        }
    }

    /// A short description for error `data` ("path /x.jpg", "inline data (1234 bytes)").
    public var description: String {
        switch self {
        case .path(let p): p
        case .data(let d): "inline data (\(d.count) bytes)"
        case .url(let u), .fetched(let u, _): u.absoluteString
        }
    }
}

extension ImageSource {
    /// The shared schema `Source` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("Source", #"""
            {
              "description": "Where an image comes from: exactly one of a file path, inline base64 bytes, or an http(s) URL.",
              "oneOf": [
                {
                  "type": "object",
                  "properties": {"path": {"type": "string", "minLength": 1}},
                  "required": ["path"],
                  "additionalProperties": false
                },
                {
                  "type": "object",
                  "properties": {"data": {"type": "string", "minLength": 1, "contentEncoding": "base64"}},
                  "required": ["data"],
                  "additionalProperties": false
                },
                {
                  "type": "object",
                  "properties": {"url": {"type": "string", "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://"}},
                  "required": ["url"],
                  "additionalProperties": false
                }
              ]
            }
            """#),
    ]
}
