import Foundation

/// Channel concatenation, addition (residuals), ReLU and the logistic sigmoid. The in-place ops
/// consume their first input: the network hands over a tensor it no longer needs, whose storage is
/// then written instead of copied.
enum Elementwise {
    static func concat(_ parts: [Tensor]) throws -> Tensor {
        let shape = try Tensor.concatenatedShape(of: parts, for: "concat")
        var data: [Float] = []
        data.reserveCapacity(shape.channels * shape.height * shape.width)
        for p in parts { data += p.data }
        return Tensor(channels: shape.channels, height: shape.height, width: shape.width, data: data)
    }

    static func add(_ a: consuming Tensor, _ b: Tensor) throws -> Tensor {
        guard a.channels == b.channels, a.height == b.height, a.width == b.width else {
            throw InferenceError.modelDamaged("add of tensors of different shapes")
        }
        var out = a
        out.data.withUnsafeMutableBufferPointer { o in
            b.data.withUnsafeBufferPointer { s in for i in 0..<o.count { o[i] += s[i] } }
        }
        return out
    }

    static func relu(_ x: consuming Tensor) -> Tensor {
        var out = x
        out.data.withUnsafeMutableBufferPointer { o in for i in 0..<o.count { o[i] = max(0, o[i]) } }
        return out
    }

    static func sigmoid(_ x: consuming Tensor) -> Tensor {
        var out = x
        out.data.withUnsafeMutableBufferPointer { o in for i in 0..<o.count { o[i] = 1 / (1 + expf(-o[i])) } }
        return out
    }
}
