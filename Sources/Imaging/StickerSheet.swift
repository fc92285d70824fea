import Compute

/// A sticker pack's sheet: stickers in a grid of square cells, row by row, each fitted (contain) inside its
/// cell's padding and centred, over a background.
public struct StickerSheet: Sendable {
    public var columns: Int
    /// The side of a cell in pixels.
    public var cellSize: Int
    /// Space between a sticker and its cell's edge.
    public var padding: Int
    public var background: RGBA

    public init(columns: Int, cellSize: Int, padding: Int, background: RGBA) {
        self.columns = columns
        self.cellSize = cellSize
        self.padding = padding
        self.background = background
    }

    /// Rows needed for `count` stickers.
    public func rows(for count: Int) -> Int { (count + columns - 1) / columns }

    /// The sheet's size for `count` stickers.
    public func size(for count: Int) -> (width: Int, height: Int) { (columns * cellSize, rows(for: count) * cellSize) }

    /// The empty sheet for `count` stickers: the background. (``SheetCanvas`` fills it.)
    func canvas(for count: Int) -> Image {
        let (width, height) = size(for: count)
        return Image(width: width, height: height, fill: background)
    }

    /// `sticker` fitted (contain) inside a cell's padding: what ``place(_:at:on:)`` takes.
    func fitted(_ sticker: Image, on loop: some ParallelLoop) throws -> Image {
        let inner = cellSize - 2 * padding
        return try Resampler.thumbnail(sticker, width: inner, height: inner, fit: .contain, on: loop)
    }

    /// A fitted sticker centred in cell `index` of `sheet`, in place: it changes no pixel outside that cell.
    func place(_ fitted: Image, at index: Int, on sheet: inout Image) {
        let x = (index % columns) * cellSize + (cellSize - fitted.width) / 2
        let y = (index / columns) * cellSize + (cellSize - fitted.height) / 2
        Compositing.over(fitted, onto: &sheet, at: x, y: y)
    }
}
