/// One input plane of a Winograd convolution: in memory, or read through a bilinear enlargement of a smaller plane
/// (a resize the activation plan folded into the convolution, so the enlarged tensor is never stored).
enum InputPlane {
    case stored(UnsafePointer<Float>)
    case upsampled(UpsampledPlane)
}

/// A plane enlarged on the fly: the rows a tile row needs, computed as ``BilinearResize`` computes them (the same
/// arithmetic in the same order, so the same values).
struct UpsampledPlane {
    let source: UnsafePointer<Float>
    let sourceWidth: Int
    let columns: BilinearTaps
    let rows: BilinearTaps
}

/// Per band: the enlarged rows of the current tile row, and the source rows already enlarged along x, by source row
/// (the eight consecutive rows of a tile row, enlarged by two as this network does, read at most five consecutive
/// source rows, so slots by row number do not collide within a tile row, and the next tile row finds the rows it
/// shares with this one; a collision would only enlarge a row again).
struct UpsampledRows {
    static let slots = 8
    private let memory: UnsafeMutablePointer<Float>
    private let width: Int
    private var keys = [Int](repeating: -1, count: slots)

    /// Over `(WinogradKernel.inputTile + slots) * width` floats of scratch.
    init(memory: UnsafeMutablePointer<Float>, width: Int) {
        self.memory = memory
        self.width = width
    }

    /// Forgets the cached rows: the next plane has its own.
    mutating func startPlane() {
        for i in keys.indices { keys[i] = -1 }
    }

    /// Row `y` of `plane` enlarged, written into the tile row's slot `slot` (0 ..< `WinogradKernel.inputTile`).
    mutating func row(_ y: Int, of plane: UpsampledPlane, slot: Int) -> UnsafePointer<Float> {
        let top = xRow(plane.rows.first[y], of: plane), bottom = xRow(plane.rows.second[y], of: plane)
        let out = memory + slot * width
        plane.rows.blend(top, bottom, at: y, into: out, count: width)
        return UnsafePointer(out)
    }

    private mutating func xRow(_ j: Int, of plane: UpsampledPlane) -> UnsafePointer<Float> {
        let slot = j % Self.slots
        let row = memory + (WinogradKernel.inputTile + slot) * width
        if keys[slot] != j {
            plane.columns.interpolate(plane.source + j * plane.sourceWidth, into: row)
            keys[slot] = j
        }
        return UnsafePointer(row)
    }
}
