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

    /// Lays `stickers` out; checks cancellation before each one.
    public func compose(_ stickers: [Image]) throws -> Image {
        let (width, height) = size(for: stickers.count)
        var sheet = Image(width: width, height: height, fill: background)
        let inner = cellSize - 2 * padding
        for (i, sticker) in stickers.enumerated() {
            try Cancellation.check()
            let fitted = try Resampler.thumbnail(sticker, width: inner, height: inner, fit: .contain)
            let x = (i % columns) * cellSize + (cellSize - fitted.width) / 2
            let y = (i / columns) * cellSize + (cellSize - fitted.height) / 2
            sheet = Compositing.over(fitted, on: sheet, at: x, y: y)
        }
        return sheet
    }
}
