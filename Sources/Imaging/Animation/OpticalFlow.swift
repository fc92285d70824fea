import CKernels
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Dense optical flow between two frames of a clip: where every pixel of one frame is in the next, so that a key
/// frame's mask can follow a subject that turns, bends or comes closer, which one translation per frame cannot
/// follow.
///
/// The method is Dense Inverse Search (Kroeger, Timofte, Dai and Van Gool, "Fast Optical Flow using Dense Inverse
/// Search", ECCV 2016), coarse to fine over a pyramid of the luma, in CKernels' `ck_flow`: 8 x 8 patches 4 pixels
/// apart, each refined from the coarser level's motion (or a neighbour's, where that fits clearly better) by
/// inverse-compositional Lucas-Kanade on mean-normalised intensities (a patch that gets lighter or darker as a whole
/// still matches), then every pixel the mean of its patches' vectors weighted by how well each explains it, then a
/// short variational refinement (Brox et al.'s energy, as OpenCV's DIS runs it) that fills in flat regions from
/// around them and lets the motion vary within a patch. About 3 ms of one core for a 512 x 288 frame at step 2; it
/// runs on the caller's thread and uses no other.
public enum OpticalFlow {
    /// The flow from `from` to `to` (`from(p) ≈ to(p + F(p))`), computed at `1 / step` of the frames' size and
    /// returned on that grid (``FlowField``): step 2 measures motion on half-size frames, which is finer than a
    /// mask carried by it needs and a quarter of the work of step 1.
    /// - Throws: `ImagingError.flowFailed` when the frames are too small for one patch at that size (under 8 pixels
    ///   on a side once divided by `step`) or too large (a side over 16384), or when memory runs out.
    /// - Precondition: frames of the same size; `step` is 1, 2 or 4.
    /// - Parameter scratch: where the flow works, kept from one call to the next (nil: allocated for this call).
    public static func between(_ from: LumaPlane, _ to: LumaPlane, step: Int = 2, scratch: Scratch? = nil)
        throws(ImagingError) -> FlowField
    {
        precondition(from.width == to.width && from.height == to.height, "frames of different sizes")
        precondition([1, 2, 4].contains(step), "the flow's step is 1, 2 or 4")
        var params = ck_flow_params()
        ck_flow_default_params(&params)
        params.finest = step.trailingZeroBitCount
        var (columns, rows) = (0, 0)
        let sized = ck_flow_field_size(from.width, from.height, &params, &columns, &rows)
        guard sized == CK_FLOW_OK else { throw failure(sized, from) }
        var u = [Float](repeating: 0, count: columns * rows), v = u
        let status = from.values.withUnsafeBufferPointer { a in
            to.values.withUnsafeBufferPointer { b in
                u.withUnsafeMutableBufferPointer { u in
                    v.withUnsafeMutableBufferPointer { v in
                        guard let scratch else {
                            return ck_flow(a.baseAddress, b.baseAddress, min(a.count, b.count), from.width, from.height,
                                           &params, u.baseAddress, v.baseAddress, u.count)
                        }
                        return scratch.with(width: from.width, height: from.height, params: params) { block in
                            ck_flow_with_scratch(a.baseAddress, b.baseAddress, min(a.count, b.count), from.width,
                                                 from.height, &params, u.baseAddress, v.baseAddress, u.count,
                                                 block.baseAddress, block.count)
                        }
                    }
                }
            }
        }
        guard status == CK_FLOW_OK else { throw failure(status, from) }
        return FlowField(width: from.width, height: from.height, step: step, u: u, v: v)
    }

    /// The scratch of a clip's flows, kept between them: a flow of a 512 x 288 frame works in about 6.7 MB, which
    /// allocated afresh for every flow (two a frame) is mapped and faulted in page by page each time.
    ///
    /// Grows to the largest flow asked of it and is freed with it. One flow uses it at a time (the lock): a scratch
    /// shared by copies of a value that holds it is shared safely, only not in parallel.
    public final class Scratch: Sendable {
        private let block = Mutex<UnsafeMutableRawBufferPointer?>(nil)

        public init() {}

        deinit { block.withLock { free($0?.baseAddress) } }

        /// Calls `body` with a block of at least the bytes `ck_flow_with_scratch` needs for these frames, aligned to
        /// 64 bytes; `CK_FLOW_ENOMEM` without calling it when that cannot be had, or `ck_flow_scratch_size`'s
        /// refusal.
        func with(width: Int, height: Int, params: ck_flow_params, _ body: (UnsafeMutableRawBufferPointer) -> Int32)
            -> Int32
        {
            var params = params
            var bytes = 0
            let sized = ck_flow_scratch_size(width, height, &params, &bytes)
            guard sized == CK_FLOW_OK else { return sized }
            return block.withLock { held in
                if let current = held, current.count >= bytes { return body(current) }
                free(held?.baseAddress)
                held = nil
                // aligned_alloc, not `allocate`: running out of memory is this request's error, not the worker's trap.
                guard let raw = aligned_alloc(64, (bytes + 63) & ~63) else { return CK_FLOW_ENOMEM }
                held = UnsafeMutableRawBufferPointer(start: raw, count: bytes)
                return body(held!)
            }
        }
    }

    /// The error for a status of `ck_flow`.
    private static func failure(_ status: Int32, _ frame: LumaPlane) -> ImagingError {
        switch status {
        case CK_FLOW_ESIZE:
            .flowFailed(message: "a \(frame.width)x\(frame.height) frame is too small for the flow's patches or too large")
        case CK_FLOW_ENOMEM: .flowFailed(message: "out of memory")
        default: .flowFailed(message: "ck_flow refused its arguments (\(status))")
        }
    }
}
