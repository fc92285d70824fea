import Imaging

/// A motion source's facts as `image.info` reports them (`"motion": {...}`): absent fields are what the container
/// does not say.
struct MotionSummary: Encodable, Sendable {
    var width: Int
    var height: Int
    var frameCount: Int?
    var duration: Double?
    var frameRate: Double?
    var codec: String
    var container: String
    var hasAlpha: Bool
    var loopCount: Int?
    var rotation: Int

    init(_ info: MotionInfo) {
        width = info.width
        height = info.height
        frameCount = info.frameCount
        // Milliseconds are the precision any container here keeps; more digits are float noise.
        duration = info.duration.map { ($0 * 1000).rounded() / 1000 }
        frameRate = info.frameRate.map { ($0 * 1000).rounded() / 1000 }
        codec = info.codec
        container = info.container
        hasAlpha = info.hasAlpha
        loopCount = info.loopCount
        rotation = info.rotation
    }
}
