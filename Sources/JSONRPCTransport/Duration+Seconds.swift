extension Duration {
    /// The duration in seconds as a `Double` (for timeouts handed to Foundation and for reports).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds, rounded to 0.01 ms (timings in results).
    public var inMilliseconds: Double {
        (inSeconds * 100_000).rounded() / 100
    }
}
