/// Channels, height and width of a tensor.
struct TensorShape: Sendable, Equatable {
    var channels: Int
    var height: Int
    var width: Int

    var count: Int { channels * height * width }
}
