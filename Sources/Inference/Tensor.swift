/// A feature map of one image: `channels` planes of `height` x `width` floats, channel-major (CHW).
/// A value type: layers read their inputs and write fresh outputs.
public struct Tensor: Sendable, Equatable {
    public let channels: Int
    public let height: Int
    public let width: Int
    public var data: [Float]

    public init(channels: Int, height: Int, width: Int, data: [Float]) {
        precondition(data.count == channels * height * width, "tensor data does not match its shape")
        self.channels = channels
        self.height = height
        self.width = width
        self.data = data
    }

    /// A tensor of zeros.
    public init(channels: Int, height: Int, width: Int) {
        self.init(channels: channels, height: height, width: width,
                  data: [Float](repeating: 0, count: channels * height * width))
    }

    /// Pixels per channel.
    public var planeSize: Int { height * width }
}
