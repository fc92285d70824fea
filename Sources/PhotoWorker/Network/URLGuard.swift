import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The worker's own SOCKS5 proxy on loopback, through which every URL fetch connects while URLs
/// may be policed (`--urls public`, or MCP sessions' default).
///
/// URLSession on Linux (libcurl) offers no hook between its DNS lookup and its `connect`, so a
/// check made before the fetch could be undone by a name that resolves differently a moment later.
/// Routed through this proxy (`socks5h`: the proxy does the lookup), the name is resolved here,
/// every address it resolves to is checked against the policy in force, and the connection is
/// made to exactly the address checked. Redirects open new connections, so each hop is checked too.
public final class URLGuard: Sendable {
    /// Test hooks, read from the environment once: a resolver stub and addresses to treat as public
    /// (the tests' local servers live on loopback). Empty in normal use.
    struct Hooks: Sendable {
        /// `PHOTOWORKER_TEST_RESOLVE="name=addr,name=addr"`; `name=a|b` answers `a` to the first
        /// lookup and `b` to every later one (a DNS-rebinding stand-in).
        var hosts: [String: [String]] = [:]
        /// `PHOTOWORKER_TEST_PUBLIC_ADDRESSES="127.0.0.2,..."`.
        var publicAddresses: Set<String> = []

        static func fromEnvironment() -> Hooks {
            let env = ProcessInfo.processInfo.environment
            var h = Hooks()
            for pair in (env["PHOTOWORKER_TEST_RESOLVE"] ?? "").split(separator: ",") {
                let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).trimmingCharacters(in: .whitespaces) }
                if kv.count == 2 { h.hosts[kv[0].lowercased(), default: []].append(kv[1]) }
            }
            h.publicAddresses = Set((env["PHOTOWORKER_TEST_PUBLIC_ADDRESSES"] ?? "").split(separator: ",").map(String.init))
            return h
        }
    }

    /// The proxy's port on 127.0.0.1.
    public let port: UInt16
    private let listener: Int32
    private let policy: @Sendable () -> URLPolicy
    private let hooks: Hooks
    /// The latest refusal or connection failure per `host:port`, so the fetcher can name the rule
    /// (or the failure) instead of libcurl's "Can't complete SOCKS5 connection".
    private let refusals = Mutex<[String: WorkerError]>([:])

    private init(listener: Int32, port: UInt16, policy: @escaping @Sendable () -> URLPolicy, hooks: Hooks) {
        self.listener = listener
        self.port = port
        self.policy = policy
        self.hooks = hooks
    }

    /// Starts the proxy and points libcurl at it (`ALL_PROXY=socks5h://127.0.0.1:port`; the other
    /// proxy variables are cleared). Call before any fetch, while the process has one thread.
    /// - Parameter policy: the URL policy in force, asked at every connection.
    public static func start(policy: @escaping @Sendable () -> URLPolicy) throws -> URLGuard {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw GuardError.cannotListen(String(cString: strerror(errno))) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(fd, sa, len) == 0 && listen(fd, 64) == 0 && getsockname(fd, sa, &len) == 0
            }
        }
        guard bound else {
            close(fd)
            throw GuardError.cannotListen(String(cString: strerror(errno)))
        }
        let port = UInt16(bigEndian: addr.sin_port)
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "all_proxy"] { unsetenv(name) }
        setenv("ALL_PROXY", "socks5h://127.0.0.1:\(port)", 1)
        let g = URLGuard(listener: fd, port: port, policy: policy, hooks: processHooks)
        Thread.detachNewThread { g.acceptLoop() }
        return g
    }

    enum GuardError: Error { case cannotListen(String) }

    // MARK: - Checks the fetcher makes before and after

    /// How often each stubbed name was looked up (for `a|b` answers).
    private static let lookups = Mutex<[String: Int]>([:])

    /// The hooks of this process (read once).
    static let processHooks = Hooks.fromEnvironment()

    /// Refuses a URL whose host is, or resolves to, an address the policy forbids. The proxy checks
    /// again at the connection; this gives the precise error early (and is all the check there is
    /// where no guard runs, as in in-process use of the library).
    /// - Parameter resolvingNames: look names up (false: only literal addresses and the test
    ///   resolver's names are checked here).
    static func check(_ url: URL, policy: URLPolicy, resolvingNames: Bool = true) throws {
        guard policy != .any, let host = url.host else { return }
        var addresses: [String] = []
        if policy == .public {
            let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
            guard resolvingNames || IPAddressClass(literal: bare) != nil || processHooks.hosts[bare.lowercased()] != nil else { return }
            addresses = resolve(host, hooks: processHooks)
        }
        if let error = refusal(policy, host: host, addresses: addresses, url: url.absoluteString, hooks: processHooks) {
            throw error
        }
    }

    /// The refusal (or connection failure) the proxy recorded for `url`'s host, if any.
    func recordedRefusal(for url: URL) -> WorkerError? {
        guard let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        // Named by the URL the client gave, not the proxy's host:port.
        switch refusals.withLock({ $0.removeValue(forKey: "\(host):\(port)") }) {
        case .urlRefused(_, let rule, let reason)?: return .urlRefused(url: url.absoluteString, rule: rule, reason: reason)
        case .fetchFailed(_, let status, let reason)?: return .fetchFailed(url: url.absoluteString, status: status, reason: reason)
        case let other: return other
        }
    }

    /// What `policy` says of a host and the addresses it resolves to: nil to connect, else the refusal.
    /// The one statement of the rules, for the fetch's early check and the proxy's connection alike.
    private static func refusal(_ policy: URLPolicy, host: String, addresses: [String], url: String, hooks: Hooks) -> WorkerError? {
        switch policy {
        case .any: return nil
        case .disabled: return .urlRefused(url: url, rule: "urls-disabled", reason: "this session fetches no URLs (--urls none)")
        case .public: break
        }
        guard !addresses.isEmpty else { return nil }  // unresolvable: the fetch reports it
        for a in addresses {
            let cls = hooks.publicAddresses.contains(a) ? .public : (IPAddressClass(literal: a) ?? .unspecified)
            if cls != .public {
                let named = IPAddressClass(literal: host) == nil ? "\(host) resolves to \(a)" : "\(a)"
                return .urlRefused(url: url, rule: "non-public-address",
                                   reason: "\(named), a \(cls.rawValue) address; this session fetches only public addresses")
            }
        }
        return nil
    }

    /// The addresses `host` resolves to, as text (the test resolver first, then the system's).
    static func resolve(_ host: String, hooks: Hooks) -> [String] {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if IPAddressClass(literal: name) != nil { return [name] }
        if let stub = hooks.hosts[name] {
            let lookup = lookups.withLock { counts -> Int in
                defer { counts[name, default: 0] += 1 }
                return counts[name, default: 0]
            }
            return stub.map { entry in
                let sequence = entry.split(separator: "|").map(String.init)
                return sequence[min(lookup, sequence.count - 1)]
            }
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var out: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(n.pointee.ai_addr, n.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(nulTerminated: buffer)
                if !out.contains(text) { out.append(text) }
            }
            node = n.pointee.ai_next
        }
        return out
    }

    // MARK: - The proxy

    private func acceptLoop() {
        while true {
            let c = accept(listener, nil, nil)
            if c >= 0 { _ = fcntl(c, F_SETFD, FD_CLOEXEC) }
            if c < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE { continue }
                return
            }
            Thread.detachNewThread { self.serve(c) }
        }
    }

    /// One SOCKS5 connection (RFC 1928, no authentication, CONNECT only).
    private func serve(_ client: Int32) {
        defer { close(client) }
        Self.setTimeout(client, seconds: 10)
        guard let hello = Self.read(client, 2), hello[0] == 5, Self.read(client, Int(hello[1])) != nil,
              Self.write(client, [5, 0]),
              let head = Self.read(client, 4), head[0] == 5 else { return }
        let host: String
        switch head[3] {
        case 1:
            guard let b = Self.read(client, 4) else { return }
            host = b.map(String.init).joined(separator: ".")
        case 3:
            guard let n = Self.read(client, 1), let b = Self.read(client, Int(n[0])) else { return }
            host = String(decoding: b, as: UTF8.self).lowercased()
        case 4:
            guard let b = Self.read(client, 16) else { return }
            var v6 = in6_addr()
            withUnsafeMutableBytes(of: &v6) { $0.copyBytes(from: b) }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            inet_ntop(AF_INET6, &v6, &text, socklen_t(text.count))
            host = String(nulTerminated: text)
        default:
            _ = Self.write(client, [5, 8, 0, 1, 0, 0, 0, 0, 0, 0])
            return
        }
        guard let p = Self.read(client, 2) else { return }
        let port = Int(p[0]) << 8 | Int(p[1])
        guard head[1] == 1 else {  // CONNECT only
            _ = Self.write(client, [5, 7, 0, 1, 0, 0, 0, 0, 0, 0])
            return
        }
        let current = policy()
        let addresses = current == .disabled ? [] : Self.resolve(host, hooks: hooks)
        let key = "\(host):\(port)"
        let display = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        if let refused = Self.refusal(current, host: host, addresses: addresses, url: display, hooks: hooks) {
            refusals.withLock { $0[key] = refused }
            _ = Self.write(client, [5, 2, 0, 1, 0, 0, 0, 0, 0, 0])
            return
        }
        var lastError: Int32 = 0
        guard let remote = addresses.lazy.compactMap({ a -> Int32? in
            let fd = Self.connect(to: a, port: port)
            if fd == nil { lastError = errno }
            return fd
        }).first else {
            let reason = addresses.isEmpty ? "cannot resolve \(host)"
                : "cannot connect to \(host) port \(port): \(String(cString: strerror(lastError)))"
            refusals.withLock { $0[key] = .fetchFailed(url: display, status: nil, reason: reason) }
            _ = Self.write(client, [5, addresses.isEmpty ? 4 : 5, 0, 1, 0, 0, 0, 0, 0, 0])
            return
        }
        defer { close(remote) }
        guard Self.write(client, [5, 0, 0, 1, 0, 0, 0, 0, 0, 0]) else { return }
        Self.setTimeout(client, seconds: 0)
        Self.splice(client, remote)
    }

    private static func connect(to address: String, port: Int) -> Int32? {
        func stored<T>(_ a: T) -> (sockaddr_storage, socklen_t) {
            var s = sockaddr_storage()
            withUnsafeBytes(of: a) { src in withUnsafeMutableBytes(of: &s) { $0.copyMemory(from: src) } }
            return (s, socklen_t(MemoryLayout<T>.size))
        }
        var storage: sockaddr_storage, length: socklen_t
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            (storage, length) = stored(sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: in_port_t(UInt16(port).bigEndian),
                                                   sin_addr: v4, sin_zero: (0, 0, 0, 0, 0, 0, 0, 0)))
        } else if inet_pton(AF_INET6, address, &v6) == 1 {
            (storage, length) = stored(sockaddr_in6(sin6_family: sa_family_t(AF_INET6), sin6_port: in_port_t(UInt16(port).bigEndian),
                                                     sin6_flowinfo: 0, sin6_addr: v6, sin6_scope_id: 0))
        } else {
            return nil
        }
        let fd = socket(Int32(storage.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        setTimeout(fd, seconds: 10)  // bounds a blocking connect too
        let ok = withUnsafePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) == 0 }
        }
        guard ok else {
            let e = errno
            close(fd)
            errno = e
            return nil
        }
        setTimeout(fd, seconds: 0)
        return fd
    }

    /// Copies both ways until both sides are done (or one fails).
    private static func splice(_ a: Int32, _ b: Int32) {
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        var open = [true, true]
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while open[0] || open[1] {
            for i in 0..<2 { fds[i].fd = open[i] ? (i == 0 ? a : b) : -1 }
            let r = poll(&fds, 2, -1)
            if r < 0 { if errno == EINTR { continue }; return }
            for i in 0..<2 where open[i] && fds[i].revents != 0 {
                let from = i == 0 ? a : b, to = i == 0 ? b : a
                let n = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress!, $0.count, 0) }
                if n > 0 {
                    if !write(to, Array(buffer[0..<n])) { return }
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    if n < 0 { return }
                    open[i] = false
                    shutdown(to, Int32(SHUT_WR))
                }
            }
        }
    }

    private static func setTimeout(_ fd: Int32, seconds: Int) {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func read(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
            if n > 0 { got += n; continue }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
        return out
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno == EINTR { continue }
            return false
        }
        return true
    }
}

extension String {
    /// The text of a C buffer up to its first NUL (the buffers filled by getnameinfo and inet_ntop).
    fileprivate init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
