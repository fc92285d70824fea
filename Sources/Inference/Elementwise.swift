import CKernels
import Foundation

/// Channel concatenation, addition (residuals), ReLU and the logistic sigmoid. The output may be the
/// first input's own storage (the plan lets an op that is that input's last reader write over it):
/// each element is read before it is written.
enum Elementwise {
    static func concat(_ parts: [TensorView], into out: TensorView) {
        var next = out.base
        for p in parts {
            next.update(from: p.base, count: p.count)
            next += p.count
        }
    }

    static func add(_ a: TensorView, _ b: TensorView, into out: TensorView) {
        ck_add(a.base, b.base, out.count, out.base)
    }

    static func relu(_ x: TensorView, into out: TensorView) {
        let x = x.base, o = out.base
        for i in 0..<out.count { o[i] = max(0, x[i]) }
    }

    static func sigmoid(_ x: TensorView, into out: TensorView) {
        let x = x.base, o = out.base
        for i in 0..<out.count { o[i] = 1 / (1 + expf(-x[i])) }
    }
}
