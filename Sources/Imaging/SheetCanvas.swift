import Compute
import Synchronization

/// A ``StickerSheet`` filled in as its stickers come, from any thread: each is placed in its own cell the moment it
/// is fitted, so an export holds the sheet and the stickers in flight, never every sticker at full size.
public final class SheetCanvas: Sendable {
    private let layout: StickerSheet
    private let sheet: Mutex<Image>

    /// An empty sheet of `layout` for `count` stickers.
    public init(_ layout: StickerSheet, count: Int) {
        self.layout = layout
        sheet = Mutex(layout.canvas(for: count))
    }

    /// Fits `sticker` to a cell (on the calling thread, stopping when `loop` is cancelled) and places it in cell
    /// `index` (under the lock, in place).
    public func place(_ sticker: Image, at index: Int, on loop: some ParallelLoop) throws {
        let fitted = try layout.fitted(sticker, on: loop)
        sheet.withLock { layout.place(fitted, at: index, on: &$0) }
    }

    /// The sheet as placed so far; the canvas is left empty (a 1x1 image), so the caller holds the only copy.
    public func take() -> Image {
        sheet.withLock { sheet in
            defer { sheet = Image(width: 1, height: 1) }
            return sheet
        }
    }
}
