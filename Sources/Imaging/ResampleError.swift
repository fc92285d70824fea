/// Why ``Resampler`` refused a request. Cancellation is reported as `CancellationError` instead.
public enum ResampleError: Error, Sendable, Equatable {
    /// The requested output size is not positive or too large (``Resampler/maximumDimension``,
    /// ``Resampler/maximumPixels``, or a scratch buffer beyond 2 GiB).
    case invalidTargetSize(width: Int, height: Int)
    /// A source side exceeds ``Resampler/maximumSourceDimension``.
    case sourceTooLarge(width: Int, height: Int)
    /// The source rectangle is empty or not inside the image.
    case invalidSourceRect(x: Int, y: Int, width: Int, height: Int)
}
