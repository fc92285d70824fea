import Foundation

/// Channel concatenation, addition (residuals), ReLU and the logistic sigmoid. The in-place ops
/// consume their first input: the network hands over a tensor it no longer needs, whose storage is
/// then written instead of copied.
enum Elementwise {
    static func concat(_ parts: [Tensor]) throws -> Tensor {
        guard let first = parts.first, parts.allSatisfy({ $0.height == first.height && $0.width == first.width }) else {
            throw InferenceError.modelDamaged("concat of tensors of different sizes")
        }
        var data: [Float] = []
        data.reserveCapacity(parts.reduce(0) { $0 + $1.data.count })
        for p in parts { data += p.data }
        return Tensor(channels: parts.reduce(0) { $0 + $1.channels }, height: first.height, width: first.width, data: data)
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
