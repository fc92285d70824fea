import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches URL sources: http and https only, a byte cap enforced while streaming (so an endless
/// body stops at the cap), a timeout, at most five redirects, cancellable.
public struct URLFetcher: Sendable {
    public var maxBytes: Int
    public var timeout: Duration
    public var maxRedirects = 5

    public init(maxBytes: Int, timeout: Duration) {
        self.maxBytes = maxBytes
        self.timeout = timeout
    }

    public func fetch(_ url: URL) async throws -> [UInt8] {
        let seconds = timeout.inSeconds
        let delegate = FetchDelegate(url: url, maxBytes: maxBytes, maxRedirects: maxRedirects)
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = seconds
        config.timeoutIntervalForResource = seconds
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: config, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: url)
        request.timeoutInterval = seconds
        let task = session.dataTask(with: request)
        // URLSession's timeouts are per-read idle timeouts on Linux (timeoutIntervalForResource is
        // not enforced), so a server trickling one byte a second would hold the job forever.
        // This watchdog enforces the total.
        let timeout = self.timeout
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            delegate.timedOut(after: seconds)
            task.cancel()
        }
        defer { watchdog.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.start(continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Collects one response body under a lock.
///
/// `@unchecked Sendable` is sound here: URLSession calls the delegate from its own serial
/// delegate queue, the only mutable state lives in `state` behind a `Mutex`, and the continuation
/// is resumed exactly once (`finish` takes it out under the lock).
private final class FetchDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var continuation: CheckedContinuation<[UInt8], any Error>?
        var body: [UInt8] = []
        var status: Int?
        var redirects = 0
        var failure: WorkerError?
    }

    private let url: URL
    private let maxBytes: Int
    private let maxRedirects: Int
    private let state = Mutex(State())

    init(url: URL, maxBytes: Int, maxRedirects: Int) {
        self.url = url
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
    }

    func start(_ c: CheckedContinuation<[UInt8], any Error>) {
        state.withLock { $0.continuation = c }
    }

    private func finish(_ result: Result<[UInt8], any Error>) {
        let c = state.withLock { s -> CheckedContinuation<[UInt8], any Error>? in
            let c = s.continuation
            s.continuation = nil
            return c
        }
        c?.resume(with: result)
    }

    /// The fetch ran past its total time limit; the task is cancelled next and completes with this.
    func timedOut(after seconds: Double) {
        state.withLock { s in
            if s.failure == nil { s.failure = fail(s.status, "the fetch took longer than \(seconds) s") }
        }
    }

    private func fail(_ status: Int?, _ reason: String) -> WorkerError {
        .fetchFailed(url: url.absoluteString, status: status, reason: reason)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode
        state.withLock { $0.status = status }
        if let status, !(200..<300).contains(status) {
            state.withLock { $0.failure = fail(status, "HTTP status \(status)") }
            completionHandler(.cancel)
            return
        }
        if response.expectedContentLength > Int64(maxBytes) {
            state.withLock { $0.failure = fail(status, "the body (\(response.expectedContentLength) bytes) exceeds the limit of \(maxBytes) bytes") }
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { s -> Bool in
            s.body.append(contentsOf: data)
            if s.body.count > maxBytes {
                s.failure = fail(s.status, "the body exceeds the limit of \(maxBytes) bytes")
                s.body = []
                return true
            }
            return false
        }
        if over { dataTask.cancel() }
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
            return true
        }
        if allowed { completionHandler(request) } else { completionHandler(nil); task.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (failure, body, status) = state.withLock { ($0.failure, $0.body, $0.status) }
        if let failure { finish(.failure(failure)); return }
        if let error {
            let ns = error as NSError
            if ns.code == NSURLErrorCancelled { finish(.failure(CancellationError())); return }
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
