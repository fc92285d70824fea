import CCurl
import Foundation
import JSONRPCTransport
import Synchronization

/// Fetches URL sources: http and https only, a byte cap enforced while streaming (so an endless body
/// stops at the cap), a total timeout, at most five redirects, cancellable at once, and the session's
/// ``URLPolicy`` checked on every address a connection is opened to.
///
/// The check sits inside libcurl (CCurl's `allow_address`, between the lookup and the `connect`), on the
/// address actually connected to, for each redirect hop: a name that resolves differently a moment later
/// (DNS rebinding) gains nothing, and no proxy or process environment is involved. Each fetch keeps its
/// own refusal, so concurrent fetches of one host under different policies each get their own answer.
public struct URLFetcher: Sendable {
    public var maxBytes: Int
    public var timeout: Duration
    public var maxRedirects = 5
    let hooks: TestHooks
    /// Where transfers run (libcurl blocks in poll(2)): the worker's blocking pool.
    let blocking: BlockingPool

    /// Test hooks, given to the initialiser only (the executable has no way to set them): names answered
    /// with a fixed address, and addresses treated as public (the tests' servers live on loopback).
    public struct TestHooks: Sendable {
        /// Host name (lower case) to the address libcurl connects to instead of looking it up.
        public var hosts: [String: String]
        public var publicAddresses: Set<String>

        public init(hosts: [String: String] = [:], publicAddresses: Set<String> = []) {
            self.hosts = hosts
            self.publicAddresses = publicAddresses
        }
    }

    /// Sent with every request: servers that refuse anonymous clients (some image hosts do) accept it.
    static let userAgent = "photoworker/\(Worker.version)"

    /// - Parameter blocking: the pool transfers run on: the worker's (``WorkerServices/blocking``), so its bound
    ///   counts transfers with every other blocking call; a fetcher makes no threads of its own.
    public init(maxBytes: Int, timeout: Duration, testHooks: TestHooks = TestHooks(), blocking: BlockingPool) {
        self.maxBytes = maxBytes
        self.timeout = timeout
        hooks = testHooks
        self.blocking = blocking
    }

    public func fetch(_ url: URL, policy: URLPolicy) async throws -> [UInt8] {
        if policy == .disabled {
            throw WorkerError.urlRefused(url: url.absoluteString, rule: "urls-disabled", reason: "this session fetches no URLs (--urls none)")
        }
        let transfer = try Transfer(url: url, policy: policy, fetcher: self)
        // libcurl blocks in poll(2): on the blocking pool, never the cooperative pool; a cancel aborts the transfer.
        return try await blocking.run({ try transfer.run().get() }, onCancel: { transfer.cancel() })
    }

    /// What `policy` says of connecting to `address` for `host`: nil to connect, else the refusal.
    static func refusal(_ policy: URLPolicy, host: String, address: String, url: String, hooks: TestHooks) -> WorkerError? {
        guard policy == .public else { return nil }
        let cls = hooks.publicAddresses.contains(address) ? .public : (IPAddressClass(literal: address) ?? .unspecified)
        guard cls != .public else { return nil }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let named = IPAddressClass(literal: bare) == nil && !bare.isEmpty ? "\(bare) resolves to \(address)" : address
        return .urlRefused(url: url, rule: "non-public-address",
                           reason: "\(named), a \(cls.rawValue) address; this session fetches only public addresses")
    }
}

/// One fetch: the libcurl handle, which a cancel may reach from another thread, and the refusal its
/// address check recorded.
private final class Transfer: Sendable {
    private struct State {
        var handle: OpaquePointer?
        var refusal: WorkerError?
    }

    private let url: URL
    private let policy: URLPolicy
    private let fetcher: URLFetcher
    private let state: Mutex<State>

    init(url: URL, policy: URLPolicy, fetcher: URLFetcher) throws {
        guard let handle = cc_fetch_new() else {
            throw WorkerError.fetchFailed(url: url.absoluteString, status: nil, reason: "libcurl could not be initialised")
        }
        self.url = url
        self.policy = policy
        self.fetcher = fetcher
        state = Mutex(State(handle: handle))
    }

    /// Makes ``run()`` end now (or at its start). Under the lock, so it never reaches a freed handle.
    func cancel() {
        state.withLock { s in
            if let h = s.handle { cc_fetch_cancel(h) }
        }
    }

    /// Runs the fetch on the calling (blocking) thread.
    func run() -> Result<[UInt8], any Error> {
        let handle = state.withLock { $0.handle }!
        defer {
            state.withLock { s in
                cc_fetch_free(s.handle)
                s.handle = nil
            }
        }
        let hooks = fetcher.hooks
        let connectTo = hooks.hosts.map { "\($0.key)::\($0.value):" }
        var result = cc_fetch_result()
        let context = Unmanaged.passUnretained(self).toOpaque()
        var request = cc_fetch_request()
        request.max_redirects = fetcher.maxRedirects
        request.max_bytes = Int64(fetcher.maxBytes)
        request.timeout_ms = Int(fetcher.timeout.inSeconds * 1000)
        request.use_environment_proxies = policy == .any ? 1 : 0
        request.context = context
        request.allow_address = { context, host, address, port in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.allow(host: String(cString: host!), address: String(cString: address!)) ? 1 : 0
        }
        withCStrings(connectTo) { entries in
            url.absoluteString.withCString { urlText in
                URLFetcher.userAgent.withCString { agent in
                    request.connect_to = entries
                    request.url = urlText
                    request.user_agent = agent
                    cc_fetch_run(handle, &request, &result)
                }
            }
        }
        defer { cc_fetch_body_free(result.body) }
        let text = url.absoluteString
        let status = result.status > 0 ? result.status : nil
        let message = withUnsafeBytes(of: result.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let reason: String
        switch result.code {
        case CC_FETCH_OK: return .success(Array(UnsafeBufferPointer(start: result.body, count: result.length)))
        case CC_FETCH_CANCELLED: return .failure(CancellationError())
        case CC_FETCH_REFUSED: if let refusal = state.withLock({ $0.refusal }) { return .failure(refusal) } else { reason = message }
        case CC_FETCH_TIMEOUT: reason = "the fetch took longer than \(fetcher.timeout.inSeconds) s"
        case CC_FETCH_TOO_LARGE: reason = "the body exceeds the limit of \(fetcher.maxBytes) bytes"
        case CC_FETCH_TOO_MANY_REDIRECTS: reason = "more than \(fetcher.maxRedirects) redirects"
        case CC_FETCH_BAD_REDIRECT: reason = "redirect to a non-http(s) URL"
        case CC_FETCH_CANNOT_RESOLVE: reason = "cannot resolve \(url.host ?? text)"
        case CC_FETCH_HTTP_STATUS: reason = "HTTP status \(result.status)"
        default: reason = message.isEmpty ? "the fetch failed" : message
        }
        return .failure(WorkerError.fetchFailed(url: text, status: status, reason: reason))
    }

    /// libcurl is about to connect to `address` for `host`: the policy's answer, its refusal kept.
    private func allow(host: String, address: String) -> Bool {
        guard let refused = URLFetcher.refusal(policy, host: host, address: address, url: url.absoluteString,
                                               hooks: fetcher.hooks) else { return true }
        state.withLock { $0.refusal = refused }
        return false
    }
}

/// Calls `body` with a NULL-terminated C array of `strings`, valid for the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
