import JSONRPC
import JSONRPCTransport

/// What a session may touch: the folders it may read and write, when an output may replace an
/// existing file, and which URLs it may fetch. A value, fixed for the request that holds it.
///
/// Plain JSON-RPC sessions are unrestricted unless the worker was started with `--allow-dir`;
/// MCP sessions are confined by default (``SessionPolicy`` decides which applies).
public struct AccessPolicy: Sendable, Equatable {
    /// Where paths may resolve.
    public enum Scope: Sendable, Equatable {
        case anywhere
        /// Inside one of these folders (absolute, symbolic links resolved), after every symbolic
        /// link in the path is followed.
        case within([String])
    }

    /// How an output may replace a file that exists.
    public enum Replace: String, Sendable, Equatable {
        /// Empty files and PNG/JPEG images are replaced; anything else needs `"overwrite": true`.
        case imagesOnly = "images-only"
        /// Every existing file needs `"overwrite": true` (MCP sessions).
        case never
    }

    public var read: Scope
    public var write: Scope
    public var replace: Replace
    public var urls: URLPolicy
    /// Where the folders came from: `unrestricted`, `allow-dir`, `client-roots` or `working-directory` (or
    /// `cancelled`, see ``cancelled``).
    public var origin: String

    public init(read: Scope = .anywhere, write: Scope = .anywhere, replace: Replace = .imagesOnly,
                urls: URLPolicy = .any, origin: String = "unrestricted") {
        self.read = read
        self.write = write
        self.replace = replace
        self.urls = urls
        self.origin = origin
    }

    /// The policy of a script's session started without options.
    public static let unrestricted = AccessPolicy()

    /// Nothing allowed: what a request cancelled while it waited for its session's policy gets (it is ending;
    /// whatever it still tries fails, and its answer is -32800).
    public static let cancelled = AccessPolicy(read: .within([]), write: .within([]), replace: .never, urls: .disabled,
                                               origin: "cancelled")

    /// What `initialize` and `worker.stats` report.
    public var json: JSONValue {
        func scope(_ s: Scope) -> JSONValue {
            switch s {
            case .anywhere: return "anywhere"
            case .within(let dirs): return .array(dirs.map { .string($0) })
            }
        }
        return ["read": scope(read), "write": scope(write), "replace": .string(replace.rawValue),
                "urls": .string(urls.rawValue), "origin": .string(origin)]
    }
}

/// Which URL sources may be fetched (`--urls`).
public enum URLPolicy: String, Sendable, Equatable, CaseIterable {
    /// Any http(s) URL.
    case any
    /// Only hosts whose every address is public: no loopback, private, link-local, unique-local,
    /// multicast or unspecified address, checked on the address connected to and on every redirect.
    case `public`
    /// No URL sources at all (`none` on the wire and the command line; not `.none`, which Swift
    /// would read as an absent optional).
    case disabled = "none"
}
