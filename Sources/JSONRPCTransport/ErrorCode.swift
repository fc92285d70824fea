/// A JSON-RPC error code. The protocol-level codes live here; applications add their own
/// (in the -32000 to -32099 server range) as static members in an extension.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The line is not valid JSON (or exceeds the line limit). Always answered with id null.
    public static let parseError = ErrorCode(rawValue: -32700)
    /// Valid JSON but not a valid JSON-RPC request (also: an id already in flight, shutting down).
    public static let invalidRequest = ErrorCode(rawValue: -32600)
    public static let methodNotFound = ErrorCode(rawValue: -32601)
    /// `data` names the parameter path and what was wrong.
    public static let invalidParams = ErrorCode(rawValue: -32602)
    public static let internalError = ErrorCode(rawValue: -32603)
    /// The client cancelled the request (`$/cancelRequest`, `notifications/cancelled`, `jobs.cancel`).
    public static let requestCancelled = ErrorCode(rawValue: -32800)
    /// The server cancelled the request: drain timeout, shutdown or a signal.
    public static let serverCancelled = ErrorCode(rawValue: -32802)
    /// The job queue is full; retry later.
    public static let overloaded = ErrorCode(rawValue: -32000)
    /// The job's estimated memory alone is more than the server's whole memory budget (`--max-memory`).
    public static let overMemoryBudget = ErrorCode(rawValue: -32007)

    public var description: String { String(rawValue) }
}
