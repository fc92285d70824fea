/// A JSON-RPC error object: what goes on the wire as `"error"`.
///
/// Every Swift error a handler throws is mapped to one of these in exactly one place,
/// ``RPCError/init(_:)``; application errors take part by conforming to ``RPCErrorConvertible``.
public struct RPCError: Error, Sendable, Equatable {
    public var code: ErrorCode
    public var message: String
    /// Structured detail: what went wrong and where.
    public var data: JSONValue?

    public init(code: ErrorCode, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// Maps any error to its wire form: the single place where Swift errors meet error codes.
    public init(_ error: any Error) {
        switch error {
        case let e as RPCError:
            self = e
        case let e as any RPCErrorConvertible:
            self = e.rpcError
        case is CancellationError:
            self = .cancelled
        case let e as DecodingError:
            self = RPCError.invalidParams(e)
        default:
            self = RPCError(code: .internalError, message: "internal error",
                            data: ["reason": .string(String(describing: error))])
        }
    }

    public var json: JSONValue {
        var o: [String: JSONValue] = ["code": .int(code.rawValue), "message": .string(message)]
        if let data { o["data"] = data }
        return .object(o)
    }

    // MARK: Common errors

    public static let cancelled = RPCError(code: .requestCancelled, message: "request cancelled")

    public static func serverCancelled(_ reason: String) -> RPCError {
        RPCError(code: .serverCancelled, message: "request cancelled by the server", data: ["reason": .string(reason)])
    }

    public static func parse(_ e: JSONParseError) -> RPCError {
        RPCError(code: .parseError, message: "parse error",
                 data: ["reason": .string(e.reason), "offset": .int(e.offset)])
    }

    public static func invalidRequest(_ reason: String) -> RPCError {
        RPCError(code: .invalidRequest, message: "invalid request", data: ["reason": .string(reason)])
    }

    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(code: .methodNotFound, message: "method not found", data: ["method": .string(method)])
    }

    /// -32602 naming the parameter path (`source.path`, `effects[2].blur`) and the problem.
    public static func invalidParams(path: String, _ reason: String) -> RPCError {
        RPCError(code: .invalidParams, message: "invalid params",
                 data: ["path": .string(path), "reason": .string(reason)])
    }

    static func invalidParams(_ e: DecodingError) -> RPCError {
        func path(_ keys: [any CodingKey]) -> String {
            var out = ""
            for k in keys {
                if let i = k.intValue { out += "[\(i)]" } else { out += out.isEmpty ? k.stringValue : ".\(k.stringValue)" }
            }
            return out.isEmpty ? "params" : out
        }
        switch e {
        case .keyNotFound(let key, let ctx):
            return invalidParams(path: path(ctx.codingPath + [key]), "required parameter is missing")
        case .typeMismatch(let type, let ctx):
            return invalidParams(path: path(ctx.codingPath), "expected \(describe(type))")
        case .valueNotFound(let type, let ctx):
            return invalidParams(path: path(ctx.codingPath), "expected \(describe(type)), got null")
        case .dataCorrupted(let ctx):
            return invalidParams(path: path(ctx.codingPath), ctx.debugDescription)
        @unknown default:
            return invalidParams(path: "params", String(describing: e))
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type, is Int32.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        case is Bool.Type: return "a boolean"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "an object"
        }
    }
}

/// An application error that knows its JSON-RPC form. Conform a domain error enum to this so the
/// mapping from cases to codes lives in one place next to the enum.
public protocol RPCErrorConvertible: Error {
    var rpcError: RPCError { get }
}
