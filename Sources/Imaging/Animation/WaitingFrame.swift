/// A frame of an animated sticker waiting for its mask, held in three bytes a pixel when it is opaque throughout (a
/// video's frames always are): the vote on key frames' masks holds up to two key intervals of frames, and this is a
/// quarter less of that memory. A frame with any transparency (a GIF's or a WebP's) is held as it is.
struct WaitingFrame: Sendable {
    private enum Pixels: Sendable {
        case opaque(rgb: [UInt8], width: Int, height: Int)
        case image(Image)
    }

    private let pixels: Pixels
    let duration: Double

    init(_ image: Image, duration: Double) {
        self.duration = duration
        let count = image.pixelCount
        guard image.isOpaque else {
            pixels = .image(image)
            return
        }
        let rgb = [UInt8](unsafeUninitializedCapacity: count * 3) { out, initialized in
            image.pixels.withUnsafeBufferPointer { p in
                for i in 0..<count {
                    out[i * 3] = p[i * 4]
                    out[i * 3 + 1] = p[i * 4 + 1]
                    out[i * 3 + 2] = p[i * 4 + 2]
                }
            }
            initialized = count * 3
        }
        pixels = .opaque(rgb: rgb, width: image.width, height: image.height)
    }

    /// The frame's luma, taken from the bytes as held (a frame held as RGB is not widened to RGBA for it).
    var luma: LumaPlane {
        switch pixels {
        case .image(let image):
            return LumaPlane(image)
        case .opaque(let rgb, let width, let height):
            return rgb.withUnsafeBufferPointer { LumaPlane(pixels: $0, channels: 3, width: width, height: height) }
        }
    }

    /// The frame as it was added.
    var image: Image {
        switch pixels {
        case .image(let image):
            return image
        case .opaque(let rgb, let width, let height):
            let count = width * height
            let rgba = [UInt8](unsafeUninitializedCapacity: count * 4) { out, initialized in
                rgb.withUnsafeBufferPointer { p in
                    for i in 0..<count {
                        out[i * 4] = p[i * 3]
                        out[i * 4 + 1] = p[i * 3 + 1]
                        out[i * 4 + 2] = p[i * 3 + 2]
                        out[i * 4 + 3] = 255
                    }
                }
                initialized = count * 4
            }
            return Image(width: width, height: height, pixels: rgba)
        }
    }
}
