import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches URL sources: http and https only, a byte cap enforced while streaming (so an endless
/// body stops at the cap), a timeout, at most five redirects, cancellable, and the session's
/// ``URLPolicy`` checked before the fetch, on every redirect and (through ``URLGuard``) at every
/// connection.
public struct URLFetcher: Sendable {
    public var maxBytes: Int
    public var timeout: Duration
    public var maxRedirects = 5
    /// The proxy every connection goes through, when one runs.
    public var urlGuard: URLGuard?

    public init(maxBytes: Int, timeout: Duration, urlGuard: URLGuard? = nil) {
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.urlGuard = urlGuard
    }

    public func fetch(_ url: URL, policy: URLPolicy) async throws -> [UInt8] {
        if policy == .disabled { try URLGuard.check(url, policy: policy) }
        let seconds = timeout.inSeconds
        let delegate = FetchDelegate(url: url, maxBytes: maxBytes, maxRedirects: maxRedirects, policy: policy, urlGuard: urlGuard)
        // URLSession's timeouts are per-read idle timeouts on Linux (timeoutIntervalForResource is
        // not enforced), so a server trickling one byte a second would hold the job forever.
        // This watchdog enforces the total, and answers without waiting for URLSession to report.
        let timeout = self.timeout
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            delegate.end(with: WorkerError.fetchFailed(
                url: url.absoluteString, status: delegate.status, reason: "the fetch took longer than \(seconds) s"))
        }
        defer { watchdog.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard delegate.start(continuation) else { return }
                // URLSession's init, resume and cancel wait on its internal queue, which is busy
                // while a server floods us; on Linux the delegate queue and Swift's cooperative pool
                // share dispatch's default-QoS threads, so blocking there stalls the whole worker.
                // Hence a thread of its own.
                Thread.detachNewThread { delegate.launch(timeoutSeconds: seconds) }
            }
        } onCancel: {
            delegate.end(with: CancellationError())
        }
    }
}

/// Collects one response body under a lock.
///
/// `@unchecked Sendable` is sound here: URLSession calls the delegate from its serial delegate
/// queue, all mutable state lives in `state` and `gate` behind `Mutex`es, and the continuation is
/// resumed exactly once (`finish` takes it out under the lock).
private final class FetchDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var continuation: CheckedContinuation<[UInt8], any Error>?
        var body: [UInt8] = []
        var status: Int?
        var redirects = 0
        /// The URL being fetched (changes with each redirect).
        var current: URL?
        var failure: WorkerError?
        /// Set when the fetch was ended by a timeout, a cancel or the byte cap.
        var earlyFailure: (any Error)?
    }

    /// Serializes cancelling the task with answering URLSession's redirect and response
    /// callbacks: FoundationNetworking traps ("Received callback for HTTP redirection, but we're
    /// not waiting for it") when a task is cancelled between a callback and its answer.
    private struct Gate {
        var task: URLSessionDataTask?
        var cancelled = false
    }

    private let url: URL
    private let maxBytes: Int
    private let maxRedirects: Int
    private let policy: URLPolicy
    private let urlGuard: URLGuard?
    private let state = Mutex(State())
    private let gate = Mutex(Gate())

    init(url: URL, maxBytes: Int, maxRedirects: Int, policy: URLPolicy, urlGuard: URLGuard?) {
        self.url = url
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
        self.policy = policy
        self.urlGuard = urlGuard
    }

    /// Registers the continuation; false (and the continuation already resumed) when the fetch was
    /// cancelled before it started.
    func start(_ c: CheckedContinuation<[UInt8], any Error>) -> Bool {
        let early = state.withLock { s -> (any Error)? in
            if let e = s.earlyFailure { return e }
            s.continuation = c
            return nil
        }
        if let early { c.resume(throwing: early) }
        return early == nil
    }

    /// The HTTP status seen so far.
    var status: Int? { state.withLock { $0.status } }

    private func finish(_ result: Result<[UInt8], any Error>) {
        let c = state.withLock { s -> CheckedContinuation<[UInt8], any Error>? in
            let c = s.continuation
            s.continuation = nil
            return c
        }
        c?.resume(with: result)
    }

    /// Runs on a thread of its own (see `URLFetcher.fetch`): creates the session and starts the task.
    func launch(timeoutSeconds seconds: Double) {
        // The policy's look at the host first, here on a thread of our own: a DNS lookup may block.
        do {
            try URLGuard.check(url, policy: policy)
        } catch {
            finish(.failure(error))
            return
        }
        let config = URLSessionConfiguration.ephemeral
        // URLSession's own timers stay out of the way (they race with redirect answers the same
        // way a cancel does); the fetcher's watchdog enforces the timeout.
        config.timeoutIntervalForRequest = seconds + 60
        config.timeoutIntervalForResource = seconds + 60
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: config, delegate: self, delegateQueue: queue)
        var request = URLRequest(url: url)
        request.timeoutInterval = seconds + 60
        let task = session.dataTask(with: request)
        gate.withLock { g in
            g.task = task
            if !g.cancelled { task.resume() }
        }
        // Lets the task run to its end (or cancel), then releases the session and this delegate.
        session.finishTasksAndInvalidate()
    }

    /// Ends the fetch now (timeout, cancellation, byte cap): the caller gets `error` at once and the
    /// task is cancelled on a thread of its own (cancel waits on URLSession's busy internal queue).
    func end(with error: any Error) {
        let first = state.withLock { s -> Bool in
            guard s.earlyFailure == nil else { return false }
            s.earlyFailure = error
            return true
        }
        finish(.failure(error))
        guard first else { return }
        Thread.detachNewThread { [self] in
            gate.withLock { g in
                g.cancelled = true
                g.task?.cancel()
            }
        }
    }

    private func fail(_ status: Int?, _ reason: String) -> WorkerError {
        .fetchFailed(url: url.absoluteString, status: status, reason: reason)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode
        state.withLock { $0.status = status }
        var disposition = URLSession.ResponseDisposition.allow
        if let status, !(200..<300).contains(status) {
            // A redirect declined by the policy ends here too: its refusal stays the answer.
            state.withLock { if $0.failure == nil { $0.failure = fail(status, "HTTP status \(status)") } }
            disposition = .cancel
        } else if response.expectedContentLength > Int64(maxBytes) {
            state.withLock { $0.failure = fail(status, "the body (\(response.expectedContentLength) bytes) exceeds the limit of \(maxBytes) bytes") }
            disposition = .cancel
        }
        gate.withLock { g in
            if !g.cancelled { completionHandler(disposition) }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { s -> WorkerError? in
            guard s.earlyFailure == nil else { return nil }
            s.body.append(contentsOf: data)
            guard s.body.count > maxBytes else { return nil }
            let failure = fail(s.status, "the body exceeds the limit of \(maxBytes) bytes")
            s.failure = failure
            s.body = []
            return failure
        }
        // Never cancel from here: this runs on a shared dispatch thread and cancel blocks.
        if let over { end(with: over) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        let allowed = state.withLock { s -> Bool in
            s.redirects += 1
            if s.redirects > maxRedirects {
                s.failure = fail(response.statusCode, "more than \(maxRedirects) redirects")
                return false
            }
            if let scheme = request.url?.scheme?.lowercased(), scheme != "http" && scheme != "https" {
                s.failure = fail(response.statusCode, "redirect to a non-http(s) URL")
                return false
            }
            if let next = request.url {
                do {
                    // Literal addresses only: this is URLSession's delegate queue, where a DNS lookup
                    // would block shared threads. A name is checked by the guard as it connects.
                    try URLGuard.check(next, policy: policy, resolvingNames: false)
                } catch let refused as WorkerError {
                    s.failure = refused
                    return false
                } catch {
                    return false
                }
                s.current = next
            }
            return true
        }
        // Declining the redirect (nil) ends the task with the 3xx response. Not answering at all once
        // the task is cancelled: that is what would trap (see `Gate`).
        gate.withLock { g in
            if !g.cancelled { completionHandler(allowed ? request : nil) }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (failure, body, status) = state.withLock { ($0.failure, $0.body, $0.status) }
        if let failure { finish(.failure(failure)); return }
        if let error {
            let ns = error as NSError
            if ns.code == NSURLErrorCancelled { finish(.failure(CancellationError())); return }
            // The guard refused the connection: say which rule rather than libcurl's SOCKS message.
            if let refused = urlGuard?.recordedRefusal(for: state.withLock({ $0.current }) ?? url) {
                finish(.failure(refused))
                return
            }
            finish(.failure(fail(status, ns.localizedDescription)))
            return
        }
        if let status, !(200..<300).contains(status) {
            finish(.failure(fail(status, "HTTP status \(status)")))
            return
        }
        finish(.success(body))
    }
}
