import Imaging

/// What image methods share: the options, the decoded-image cache and the loader.
public struct WorkerServices: Sendable {
    public let options: WorkerOptions
    public let cache: ImageCache
    public let loader: ImageLoader
    /// Threads for synchronous pixel work (one per job slot), so it never occupies the
    /// cooperative pool.
    public let compute: ComputePool

    public init(options: WorkerOptions) {
        self.options = options
        cache = ImageCache(capacityBytes: options.cacheBytes)
        compute = ComputePool(threads: options.maxJobs)
        loader = ImageLoader(options: options, cache: cache, compute: compute)
    }
}
