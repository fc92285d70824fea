/// What image methods share: the options, the decoded-image cache and the loader.
public struct WorkerServices: Sendable {
    public let options: WorkerOptions
    public let cache: ImageCache
    public let loader: ImageLoader

    public init(options: WorkerOptions) {
        self.options = options
        cache = ImageCache(capacityBytes: options.cacheBytes)
        loader = ImageLoader(options: options, cache: cache)
    }
}
