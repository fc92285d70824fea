import Foundation
import JSONRPC
import JSONRPCTransport
import Synchronization
import Waiting

/// Decides each request's ``AccessPolicy``: from the command line (`--allow-dir`, `--urls`), the kind
/// of session (MCP sessions are confined by default) and an MCP client's roots.
///
/// Plain JSON-RPC sessions are unrestricted unless folders were given, so scripts work as they
/// always have. MCP sessions get the given folders, else (a legacy session, opened by `initialize`) the
/// client's roots (asked for with `roots/list` once the client is initialised, and again on
/// `notifications/roots/list_changed`), else the working directory; their URLs default to `public` and outputs
/// replace nothing without `"overwrite": true`. A modern session (MCP 2026-07-28, which deprecates roots and
/// lets no server send requests) never asks for roots: the given folders or the working directory.
public final class SessionPolicy: SessionDelegate {
    /// The command line's part.
    public struct Configuration: Sendable {
        /// Folders for sources (`--allow-dir` and `--allow-read-dir`); nil when none was given.
        public var readDirectories: [String]?
        /// Folders for outputs (`--allow-dir` and `--allow-write-dir`); nil when none was given.
        public var writeDirectories: [String]?
        /// `--urls`, nil for the session kind's default.
        public var urls: URLPolicy?
        /// How long requests of an MCP session wait for the client's roots before falling back
        /// to the working directory.
        public var rootsTimeout: Duration = .seconds(10)

        public init(readDirectories: [String]? = nil, writeDirectories: [String]? = nil, urls: URLPolicy? = nil) {
            self.readDirectories = readDirectories
            self.writeDirectories = writeDirectories
            self.urls = urls
        }

        /// Whether folders were given on the command line.
        var confined: Bool { readDirectories != nil || writeDirectories != nil }
    }

    private enum Roots: Equatable {
        /// Not an MCP session with roots (yet), or they never came.
        case unknown
        /// The client declared roots; the list is being asked for.
        case awaiting
        case known([String])
    }

    private struct State {
        var session = ClientSession()
        var roots = Roots.unknown
        /// Counts the waits for roots: a wait's timeout or failure ends only its own wait, never a later one
        /// (the timeout of `initialize`'s wait must not cut short the `roots/list` asked for after it).
        var wait = 0
        var waiters = ContinuationQueue<Void>()
        /// The current wait's timeout (`initialize`'s), cancelled when that wait ends or a later one begins.
        var timeout: ScheduledTimer?

        /// Requests wait for roots from now on; returns the new wait's number and the earlier wait's timeout, for the
        /// caller to cancel outside the lock.
        mutating func beginWait() -> (wait: Int, superseded: ScheduledTimer?) {
            roots = .awaiting
            wait += 1
            defer { timeout = nil }
            return (wait, timeout)
        }
    }

    public let configuration: Configuration
    private let workingDirectory: String
    private let state = Mutex(State())

    private let timers: any TimerScheduler

    /// - Parameter timers: the clock of the roots timeout (the server's).
    public init(configuration: Configuration = .init(), timers: any TimerScheduler = MainQueueTimers()) {
        self.configuration = configuration
        self.timers = timers
        workingDirectory = Self.canonical(FileManager.default.currentDirectoryPath) ?? FileManager.default.currentDirectoryPath
    }

    /// The policy in force now, without waiting for roots being asked for (tests).
    package var current: AccessPolicy {
        state.withLock { policy(for: $0) }
    }

    /// The policy for a request: waits while an MCP client's roots are being asked for. A request cancelled while it
    /// waits gets ``AccessPolicy/cancelled`` at once (nothing allowed), not the policy after the roots timeout.
    public func policy() async -> AccessPolicy {
        guard let ticket = state.withLock({ s in s.roots == .awaiting ? s.waiters.enqueue() : nil }) else { return current }
        do {
            try await Parking.wait({ c in state.withLock { $0.waiters.park(ticket, c) }.perform() }, onCancel: {
                state.withLock { $0.waiters.resolve(ticket, with: .failure(CancellationError())) }.perform()
            })
        } catch {
            return .cancelled
        }
        return current
    }

    /// Requests waiting for the client's roots (tests).
    package var waitingCount: Int { state.withLock { $0.waiters.parkedCount } }

    public var policyFacts: JSONValue? {
        state.withLock { s in
            guard s.roots == .awaiting else { return policy(for: s).json }
            // Requests wait for the roots; say so rather than the fallback.
            guard case .object(var facts) = policy(for: s).json else { return nil }
            facts["origin"] = "client-roots"
            facts["read"] = "pending"
            facts["write"] = "pending"
            return .object(facts)
        }
    }

    /// Whether the session is confined to its client's roots: a legacy MCP client that declared them, and
    /// no folders on the command line.
    private func followsRoots(_ session: ClientSession) -> Bool {
        session.dialect == MCPDialect.name && !MCPDialect.isModern(session.protocolVersion) && !configuration.confined
            && session.capabilities?["roots"] != nil
    }

    public func clientInitialized(_ session: ClientSession) {
        let begun = state.withLock { s -> (wait: Int, superseded: ScheduledTimer?)? in
            s.session = session
            guard followsRoots(session) else { return nil }
            return s.beginWait()
        }
        guard case let (wait, superseded)? = begun else { return }
        superseded?.cancel()
        // A client that never sends `notifications/initialized` must not hold requests forever.
        let timeout = timers.after(configuration.rootsTimeout) { [weak self] in
            self?.end(wait, with: .unknown)
        }
        // Kept for the wait to cancel when it ends; a wait that already ended (or was superseded) cancels it now.
        let stale = state.withLock { s -> ScheduledTimer? in
            guard s.wait == wait, s.roots == .awaiting else { return timeout }
            s.timeout = timeout
            return nil
        }
        stale?.cancel()
    }

    /// Asks the client for its roots (MCP `roots/list`) and confines the session to them. A client
    /// that fails to answer leaves the session in the working directory.
    public func refreshRoots(from peer: Peer) async {
        let begun = state.withLock { s -> (wait: Int, superseded: ScheduledTimer?)? in
            guard followsRoots(s.session) else { return nil }
            return s.beginWait()  // requests wait for the fresh list
        }
        guard case let (wait, superseded)? = begun else { return }
        superseded?.cancel()  // this wait has its own timeout: the roots/list request's
        do {
            let result = try await peer.request("roots/list", timeout: configuration.rootsTimeout)
            guard case .array(let roots)? = result["roots"] else { throw PeerError.closed }
            let folders = roots.compactMap { root -> String? in
                guard let uri = root["uri"]?.stringValue, let url = URL(string: uri), url.isFileURL else { return nil }
                return Self.canonical(url.path)
            }
            end(wait, with: .known(folders))
        } catch {
            end(wait, with: .unknown)
        }
    }

    /// Wait `wait` ended: with the client's roots, or without (`.unknown`: the session falls back to the working
    /// directory). Only the latest wait decides: an earlier one's timeout or late answer changes nothing.
    /// The wait's timeout is cancelled as it ends.
    private func end(_ wait: Int, with roots: Roots) {
        let (resumes, timeout) = state.withLock { s -> ([ContinuationQueue<Void>.Resume], ScheduledTimer?) in
            guard s.wait == wait, s.roots == .awaiting else { return ([], nil) }
            s.roots = roots
            defer { s.timeout = nil }
            return (s.waiters.resolveAll(with: .success(())), s.timeout)
        }
        timeout?.cancel()
        resumes.perform()
    }

    private func policy(for s: State) -> AccessPolicy {
        let mcp = s.session.dialect == MCPDialect.name
        var p = AccessPolicy()
        p.urls = configuration.urls ?? (mcp ? .public : .any)
        p.replace = mcp ? .never : .imagesOnly
        if configuration.confined {
            p.read = .within(configuration.readDirectories ?? [])
            p.write = .within(configuration.writeDirectories ?? [])
            p.origin = "allow-dir"
        } else if mcp {
            if case .known(let folders) = s.roots {
                p.read = .within(folders)
                p.write = .within(folders)
                p.origin = "client-roots"
            } else {
                p.read = .within([workingDirectory])
                p.write = .within([workingDirectory])
                p.origin = "working-directory"
            }
        }
        return p
    }

    /// A folder's absolute path with every symbolic link resolved; nil if it does not exist.
    public static func canonical(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}

extension SessionPolicy {
    /// The shared schema `SessionPolicy` of the OpenRPC document's components.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("SessionPolicy", #"""
            {
              "type": "object",
              "description": "What the session may touch (protocol/README.md, Security): the folders sources may come from and outputs may go to, how outputs may replace files, which URLs may be fetched, and where the folders came from.",
              "properties": {
                "read": {
                  "oneOf": [{"type": "array", "items": {"type": "string"}}, {"enum": ["anywhere", "pending"]}],
                  "description": "Folders (absolute, links resolved), `anywhere`, or `pending` while an MCP client's roots are asked for."
                },
                "write": {"oneOf": [{"type": "array", "items": {"type": "string"}}, {"enum": ["anywhere", "pending"]}]},
                "replace": {
                  "enum": ["images-only", "never"],
                  "description": "`images-only`: empty files and PNG/JPEG images are replaced, anything else needs `overwrite`; `never`: every existing file needs `overwrite` (MCP sessions)."
                },
                "urls": {"enum": ["any", "public", "none"]},
                "origin": {"enum": ["unrestricted", "allow-dir", "client-roots", "working-directory"]}
              },
              "required": ["read", "write", "replace", "urls", "origin"],
              "additionalProperties": false
            }
            """#),
    ]
}
