import Compute

/// An EXIF orientation (TIFF tag 0x0112): how the stored pixels must be flipped/rotated to appear upright.
public enum Orientation: Int, Sendable, CaseIterable {
    case up = 1, upMirrored = 2, down = 3, downMirrored = 4
    case leftMirrored = 5, right = 6, rightMirrored = 7, left = 8

    /// Orientations 5-8 turn the image by 90°, so width and height trade places.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The upright image. Works on whole pixels (as `UInt32`) in 64x64 tiles so the 90° cases stay
    /// cache-friendly; checks `loop`'s cancellation every band of 64 rows.
    /// - Throws: `CancellationError` when `loop` is cancelled (``InTurnLoop``, the loop for code off the compute pool: the
    ///   calling task).
    public func apply(to image: Image, on loop: some ParallelLoop) throws -> Image {
        if self == .up { return image }
        let w = image.width, h = image.height
        let dw = swapsAxes ? h : w, dh = swapsAxes ? w : h
        // Destination index of source pixel (sx, sy) is origin + sx * stepX + sy * stepY.
        let origin: Int, stepX: Int, stepY: Int
        switch self {
        case .up: (origin, stepX, stepY) = (0, 1, dw)
        case .upMirrored: (origin, stepX, stepY) = (w - 1, -1, dw)
        case .down: (origin, stepX, stepY) = ((h - 1) * dw + w - 1, -1, -dw)
        case .downMirrored: (origin, stepX, stepY) = ((h - 1) * dw, 1, -dw)
        case .leftMirrored: (origin, stepX, stepY) = (0, dw, 1)
        case .right: (origin, stepX, stepY) = (h - 1, dw, -1)
        case .rightMirrored: (origin, stepX, stepY) = ((w - 1) * dw + h - 1, -dw, -1)
        case .left: (origin, stepX, stepY) = ((w - 1) * dw, -dw, 1)
        }
        let tile = 64
        let out = try [UInt8](unsafeUninitializedCapacity: w * h * 4) { outBytes, initialized in
            try image.pixels.withUnsafeBytes { srcRaw in
                let src = srcRaw.bindMemory(to: UInt32.self)
                let dst = UnsafeMutableRawBufferPointer(outBytes).bindMemory(to: UInt32.self)
                var ty = 0
                while ty < h {
                    if loop.isCancelled { throw CancellationError() }
                    let yEnd = min(ty + tile, h)
                    var tx = 0
                    while tx < w {
                        let xEnd = min(tx + tile, w)
                        for sy in ty..<yEnd {
                            let srcRow = sy * w
                            let dstRow = origin + sy * stepY
                            for sx in tx..<xEnd {
                                dst[dstRow + sx * stepX] = src[srcRow + sx]
                            }
                        }
                        tx = xEnd
                    }
                    ty = yEnd
                }
            }
            initialized = w * h * 4
        }
        return Image(width: dw, height: dh, pixels: out)
    }
}
