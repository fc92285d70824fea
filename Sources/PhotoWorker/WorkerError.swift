import Imaging
import JSONRPC
import JSONRPCTransport

extension ErrorCode {
    /// The source file does not exist or cannot be read (or is not a regular file).
    public static let sourceUnavailable = ErrorCode(rawValue: -32001)
    /// The bytes are not a valid or supported image; `data.detail` is the codec's message.
    public static let invalidImage = ErrorCode(rawValue: -32002)
    /// The image is over the pixel limit (checked from the header).
    public static let imageTooLarge = ErrorCode(rawValue: -32003)
    /// A URL source could not be fetched; `data.status` carries the HTTP status when there was one.
    public static let fetchFailed = ErrorCode(rawValue: -32004)
    /// The output could not be written (missing folder, permissions, disk full).
    public static let outputFailed = ErrorCode(rawValue: -32005)
    /// The session's policy forbids the path or URL (`--allow-dir`, MCP roots, `--urls`); `data.rule`
    /// names the rule, `data.reason` says it in words.
    public static let accessDenied = ErrorCode(rawValue: -32006)
}

/// Everything that can go wrong in an image method, as values. The mapping to JSON-RPC codes is
/// here and nowhere else.
public enum WorkerError: Error, Sendable, RPCErrorConvertible {
    case sourceUnavailable(source: String, reason: String)
    case invalidImage(source: String, detail: String, truncated: Bool)
    /// A clip or an animation refused (-32002): `failure` says what is wrong in a person's words (the message), the
    /// library's own words go to `data.detail`, and a limit it is over is named in `data.limit` with its values.
    case invalidClip(source: String, failure: MotionError)
    case tooLarge(source: String, width: Int, height: Int, limit: Int)
    case fetchFailed(url: String, status: Int?, reason: String)
    /// `rule` names a refusal by policy (`not-an-image`, `exists`, `not-a-file`); nil for I/O failures.
    case outputFailed(path: String, reason: String, rule: String? = nil)
    /// A path outside what the session may read or write (`rule`: `outside-allowed-directories`,
    /// `escapes-allowed-directory`, `symlink-refused`).
    case accessDenied(path: String, rule: String, reason: String)
    /// A URL the session's URL policy refuses (`rule`: `urls-disabled`, `non-public-address`).
    case urlRefused(url: String, rule: String, reason: String)
    case invalidParameter(path: String, reason: String)
    case encodingFailed(detail: String)

    /// Maps a codec error for the named source.
    public init(_ error: ImagingError, source: String) {
        switch error {
        case .tooLarge(let w, let h, let limit):
            self = .tooLarge(source: source, width: w, height: h, limit: limit)
        case .truncated:
            self = .invalidImage(source: source, detail: error.message, truncated: true)
        case .encodingFailed(let message):
            self = .encodingFailed(detail: message)
        default:
            self = .invalidImage(source: source, detail: error.message, truncated: false)
        }
    }

    /// Maps a motion decoder's refusal for the named source: a frame over the pixel limit is -32003 as for
    /// stills; everything else (damaged, cut off, unsupported, too many frames, too long, a window outside the clip)
    /// is -32002 in plain words (``invalidClip(source:failure:)``). A method that knows which of its parameters asked
    /// for the window answers `startPastEnd` and `windowTooLong` as -32602 at that parameter instead.
    public init(_ error: MotionError, source: String) {
        switch error {
        case .tooLarge(let w, let h, let limit):
            self = .tooLarge(source: source, width: w, height: h, limit: limit)
        default:
            self = .invalidClip(source: source, failure: error)
        }
    }

    public var rpcError: RPCError {
        switch self {
        case .sourceUnavailable(let source, let reason):
            RPCError(code: .sourceUnavailable, message: "source not found or unreadable",
                     data: ["source": .string(source), "reason": .string(reason)])
        case .invalidImage(let source, let detail, let truncated):
            RPCError(code: .invalidImage, message: "not a valid or supported image",
                     data: ["source": .string(source), "detail": .string(detail), "truncated": .bool(truncated)])
        case .invalidClip(let source, let failure):
            RPCError(code: .invalidImage, message: failure.summary,
                     data: .object(["source": .string(source), "detail": .string(failure.message),
                                    "truncated": .bool(failure.isTruncated), "reason": .string(failure.reason)]
                        .merging(Self.limitData(failure)) { a, _ in a }))
        case .tooLarge(let source, let w, let h, let limit):
            RPCError(code: .imageTooLarge, message: "image over the pixel limit",
                     data: ["source": .string(source), "width": .int(w), "height": .int(h), "maxPixels": .int(limit)])
        case .fetchFailed(let url, let status, let reason):
            RPCError(code: .fetchFailed, message: "fetching the URL failed",
                     data: ["url": .string(url), "status": status.map { .int($0) } ?? .null, "reason": .string(reason)])
        case .outputFailed(let path, let reason, let rule):
            RPCError(code: .outputFailed, message: "cannot write the output",
                     data: .object(["path": .string(path), "reason": .string(reason)].merging(
                        rule.map { ["rule": .string($0)] } ?? [:]) { a, _ in a }))
        case .accessDenied(let path, let rule, let reason):
            RPCError(code: .accessDenied, message: "access denied by the session's policy",
                     data: ["path": .string(path), "rule": .string(rule), "reason": .string(reason)])
        case .urlRefused(let url, let rule, let reason):
            RPCError(code: .accessDenied, message: "access denied by the session's policy",
                     data: ["url": .string(url), "rule": .string(rule), "reason": .string(reason)])
        case .invalidParameter(let path, let reason):
            RPCError.invalidParams(path: path, reason)
        case .encodingFailed(let detail):
            RPCError(code: .internalError, message: "encoding failed", data: ["detail": .string(detail)])
        }
    }
}

extension WorkerError {
    /// A limit a clip is over, as `data` members: `limit` (initialize's name for it), `flag`, the clip's `value` and
    /// the limit's `maximum`.
    private static func limitData(_ failure: MotionError) -> [String: JSONValue] {
        let excess: MotionSurvey.Excess
        switch failure {
        case .tooManyFrames(let count, let limit):
            excess = .init(limit: .maxFrames, value: Double(count), maximum: Double(limit))
        case .tooLong(let seconds, let limit), .windowTooLong(let seconds, let limit):
            excess = .init(limit: .maxDurationSeconds, value: (seconds * 1000).rounded() / 1000, maximum: limit)
        default:
            return [:]
        }
        return ["limit": .string(excess.limit.rawValue), "flag": .string(excess.flag),
                "value": .double(excess.value), "maximum": .double(excess.maximum)]
    }

    /// What every method that reads an image source can answer, in the order the contracts list it.
    private static let sourceJobErrors = ["InvalidParams", "SourceNotFound", "InvalidImage", "ImageTooLarge",
                                          "FetchFailed", "RequestCancelled", "ServerCancelled", "Overloaded",
                                          "OverMemoryBudget"]
    /// The `errors` of a method that reads a source and writes nothing (`"errors": [\#(...)]` in its contract).
    static let sourceMethodErrors = ContractSchema.errorRefs(sourceJobErrors + ["AccessDenied"])
    /// The `errors` of a method that reads a source and writes an output.
    static let outputMethodErrors = ContractSchema.errorRefs(sourceJobErrors + ["OutputFailed", "AccessDenied"])

    /// The image methods' errors as the OpenRPC document's `components.errors` states them (codes and `data`).
    static let contractErrors: [ContractSchema] = [
        ContractSchema("SourceNotFound", #"""
            {
              "code": -32001,
              "message": "source not found or unreadable",
              "x-data-schema": {
                "type": "object",
                "properties": {"source": {"type": "string"}, "reason": {"type": "string"}},
                "required": ["source", "reason"],
                "additionalProperties": false
              },
              "x-description": "The source file is missing, unreadable or not a regular file."
            }
            """#),
        ContractSchema("InvalidImage", #"""
            {
              "code": -32002,
              "message": "not a valid or supported image",
              "x-data-schema": {
                "type": "object",
                "properties": {
                  "source": {"type": "string"},
                  "detail": {"type": "string", "description": "The codec's or FFmpeg's own message."},
                  "truncated": {"type": "boolean", "description": "The file ends early (cut off)."},
                  "reason": {
                    "enum": ["not-a-clip", "damaged", "cut-off", "unsupported", "too-many-frames", "too-long", "start-past-end"],
                    "description": "Clips and animations: what is wrong, for programs (the message says it for people)."
                  },
                  "limit": {
                    "enum": ["maxFrames", "maxDurationSeconds"],
                    "description": "The limit the clip is over, as initialize's limits name it."
                  },
                  "flag": {"enum": ["--max-frames", "--max-duration"]},
                  "value": {"type": "number", "description": "The clip's frames, or seconds to be decoded."},
                  "maximum": {"type": "number", "description": "The limit's value."}
                },
                "required": ["source", "detail", "truncated"],
                "additionalProperties": false
              },
              "x-description": "A still: the message is \"not a valid or supported image\" and `detail` the codec's message. A clip or an animation: the message says what is wrong in a person's words (\"the file is cut off: its index (moov) is missing\", \"the clip is 6.0 s; this worker allows 4 s (--max-duration)\"), `reason` names it, `detail` keeps FFmpeg's (or the codec's) own text, and a limit it is over is named with its values."
            }
            """#),
        ContractSchema("ImageTooLarge", #"""
            {
              "code": -32003,
              "message": "image over the pixel limit",
              "x-data-schema": {
                "type": "object",
                "properties": {
                  "source": {"type": "string"},
                  "width": {"type": "integer", "minimum": 0},
                  "height": {"type": "integer", "minimum": 0},
                  "maxPixels": {"type": "integer", "minimum": 0}
                },
                "required": ["source", "width", "height", "maxPixels"],
                "additionalProperties": false
              },
              "x-description": "Checked from the header, before decoding."
            }
            """#),
        ContractSchema("FetchFailed", #"""
            {
              "code": -32004,
              "message": "fetching the URL failed",
              "x-data-schema": {
                "type": "object",
                "properties": {
                  "url": {"type": "string"},
                  "status": {"type": ["integer", "null"]},
                  "reason": {"type": "string"}
                },
                "required": ["url", "status", "reason"],
                "additionalProperties": false
              },
              "x-description": "`status` is the HTTP status when there was one."
            }
            """#),
        ContractSchema("OutputFailed", #"""
            {
              "code": -32005,
              "message": "cannot write the output",
              "x-data-schema": {
                "type": "object",
                "properties": {
                  "path": {"type": "string"},
                  "reason": {"type": "string"},
                  "rule": {
                    "enum": ["not-an-image", "exists", "not-a-file"],
                    "description": "The rule that refused the write, when one did."
                  }
                },
                "required": ["path", "reason"],
                "additionalProperties": false
              },
              "x-description": "Missing folder, permissions, disk full; or an existing file the session may not replace (`rule`)."
            }
            """#),
        ContractSchema("AccessDenied", #"""
            {
              "code": -32006,
              "message": "access denied by the session's policy",
              "x-data-schema": {
                "type": "object",
                "properties": {
                  "path": {"type": "string"},
                  "url": {"type": "string"},
                  "rule": {
                    "enum": [
                      "outside-allowed-directories",
                      "escapes-allowed-directory",
                      "symlink-refused",
                      "non-public-address",
                      "urls-disabled"
                    ]
                  },
                  "reason": {"type": "string"}
                },
                "required": ["rule", "reason"],
                "additionalProperties": false
              },
              "x-description": "A path outside the allowed folders (`--allow-dir`, MCP roots) or a URL the URL policy (`--urls`) refuses; `rule` names the rule."
            }
            """#),
    ]
}
