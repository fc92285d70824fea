import Testing
import Imaging

@Suite(.timeLimit(.minutes(10))) struct CompositingTests {
    /// Three stickers in two columns: two rows, each sticker fitted inside its cell's padding and centred,
    /// the empty fourth cell left as background.
    @Test func stickerSheetLaysOutCellsRowByRow() throws {
        let background = RGBA(r: 240, g: 240, b: 240, a: 255)
        let sheet = StickerSheet(columns: 2, cellSize: 40, padding: 5, background: background)
        let colours = [RGBA(r: 255, g: 0, b: 0, a: 255), RGBA(r: 0, g: 255, b: 0, a: 255), RGBA(r: 0, g: 0, b: 255, a: 255)]
        let stickers = colours.map { Image(width: 60, height: 30, fill: $0) }
        let out = try Self.inOrder(sheet, stickers)
        #expect(out.width == 80 && out.height == 80, "\(out.width)x\(out.height)")
        #expect(sheet.rows(for: 3) == 2)
        for (i, c) in colours.enumerated() {
            let (cx, cy) = ((i % 2) * 40 + 20, (i / 2) * 40 + 20)
            #expect(out[cx, cy] == c, "cell \(i) centre: \(out[cx, cy])")
            // 60x30 fitted into 30x30: 30x15, centred; above it is background.
            #expect(out[cx, cy - 10] == background, "cell \(i) above the sticker: \(out[cx, cy - 10])")
            #expect(out[(i % 2) * 40 + 2, cy] == background, "cell \(i) padding: \(out[(i % 2) * 40 + 2, cy])")
        }
        #expect(out[60, 60] == background)
    }

    /// `stickers` placed on a canvas one after another, in order.
    static func inOrder(_ sheet: StickerSheet, _ stickers: [Image]) throws -> Image {
        let canvas = SheetCanvas(sheet, count: stickers.count)
        for (i, sticker) in stickers.enumerated() { try canvas.place(sticker, at: i, on: .inTurn) }
        return canvas.take()
    }

    /// A canvas filled from several threads in any order is the sheet filled in order, pixel for pixel: each
    /// sticker (translucent, larger and smaller than a cell) changes only its own cell.
    @Test func aCanvasFilledInAnyOrderIsTheComposedSheet() async throws {
        let sheet = StickerSheet(columns: 3, cellSize: 32, padding: 3, background: RGBA(r: 250, g: 240, b: 230, a: 200))
        var random = SplitMix64(seed: 42)
        let stickers = (0..<8).map { i -> Image in
            let (w, h) = (10 + 9 * i, 50 - 5 * i)
            return Image(width: w, height: h, pixels: (0..<(w * h * 4)).map { _ in UInt8(random.next() % 256) })
        }
        let canvas = SheetCanvas(sheet, count: stickers.count)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in stickers.indices.reversed() { group.addTask { try canvas.place(stickers[i], at: i, on: .inTurn) } }
            try await group.waitForAll()
        }
        let placed = canvas.take(), composed = try Self.inOrder(sheet, stickers)
        let differing = zip(placed.pixels, composed.pixels).filter { $0 != $1 }.count
        #expect(placed.width == composed.width && placed.height == composed.height && differing == 0,
                "\(placed.width)x\(placed.height) against \(composed.width)x\(composed.height), \(differing) bytes differ")
    }

    @Test func sourceOverFollowsPorterDuff() {
        let bottom = Image(width: 4, height: 4, fill: RGBA(r: 0, g: 0, b: 255, a: 255))
        let top = Image(width: 2, height: 2, fill: RGBA(r: 255, g: 0, b: 0, a: 128))
        let out = Compositing.over(top, on: bottom, at: 1, y: 1)
        #expect(out[0, 0] == RGBA(r: 0, g: 0, b: 255))
        #expect(out[1, 1] == RGBA(r: 128, g: 0, b: 127, a: 255))
        #expect(out[3, 3] == RGBA(r: 0, g: 0, b: 255))
        // Over a half-transparent bottom: Ao = 0.5 + 0.5 * 0.5, colour weighted 2:1 to the top.
        let half = Image(width: 1, height: 1, fill: RGBA(r: 0, g: 0, b: 255, a: 128))
        let o = Compositing.over(Image(width: 1, height: 1, fill: RGBA(r: 255, g: 0, b: 0, a: 128)), on: half, at: 0, y: 0)[0, 0]
        #expect(o.a == 192 && abs(Int(o.r) - 170) <= 1 && abs(Int(o.b) - 85) <= 1)
        // Transparent top leaves the bottom alone (even its colour under alpha 0).
        let clear = Image(width: 1, height: 1, fill: RGBA(r: 9, g: 9, b: 9, a: 0))
        #expect(Compositing.over(Image(width: 1, height: 1), on: clear, at: 0, y: 0) == clear)
    }

    @Test func overClipsAnyOffset() {
        let bottom = Image(width: 5, height: 5, fill: RGBA(r: 1, g: 2, b: 3))
        let top = Image(width: 3, height: 3, fill: RGBA(r: 200, g: 0, b: 0))
        let corner = Compositing.over(top, on: bottom, at: -2, y: 3)
        #expect(corner[0, 3] == RGBA(r: 200, g: 0, b: 0) && corner[0, 4] == RGBA(r: 200, g: 0, b: 0))
        #expect(corner[1, 3] == RGBA(r: 1, g: 2, b: 3) && corner[0, 2] == RGBA(r: 1, g: 2, b: 3))
        for (x, y) in [(Int.min, 0), (Int.max, Int.max), (5, 0), (0, -3)] {
            #expect(Compositing.over(top, on: bottom, at: x, y: y) == bottom)
        }
    }

    @Test func cropClipsToTheImage() {
        var image = Image(width: 6, height: 4)
        for y in 0..<4 { for x in 0..<6 { image[x, y] = RGBA(r: UInt8(x), g: UInt8(y), b: 0) } }
        let c = Compositing.crop(image, x: 4, y: 1, width: 10, height: 2)
        #expect(c.width == 2 && c.height == 2 && c[0, 0] == RGBA(r: 4, g: 1, b: 0) && c[1, 1] == RGBA(r: 5, g: 2, b: 0))
        #expect(Compositing.crop(image, x: 0, y: 0, width: 6, height: 4) == image)
        let empty = Compositing.crop(image, x: 10, y: 0, width: 3, height: 3)
        #expect(empty.width == 1 && empty.height == 1 && empty[0, 0].a == 0)
        #expect(Compositing.crop(image, x: -5, y: -5, width: Int.max, height: Int.max) == image)
        #expect(Compositing.crop(image, x: Int.min, y: Int.min, width: Int.max, height: Int.max).width == 1) // ends at -1
        #expect(Compositing.crop(image, x: 1, y: 1, width: -4, height: 2).width == 1)
    }

    @Test func gradientHitsItsCornersAndIsMonotone() {
        let a = RGBA(r: 255, g: 0, b: 0), b = RGBA(r: 0, g: 0, b: 255)
        let g = Compositing.linearGradient(width: 64, height: 32, colors: [a, b]) // 135°: top-left -> bottom-right
        #expect(g[0, 0].r >= 250 && g[63, 31].b >= 250)
        let diagonal = (0..<32).map { Int(g[$0 * 2, $0].r) }
        #expect(zip(diagonal, diagonal.dropFirst()).allSatisfy { $0 >= $1 })
        let up = Compositing.linearGradient(width: 4, height: 100, colors: [a, b], angleDegrees: 0) // to top
        #expect(up[0, 99].r >= 250 && up[3, 0].b >= 250 && up[0, 50] == up[3, 50])
    }

    @Test func gradientWithSeveralStopsAndEdgeCases() {
        let colours = [RGBA(r: 255, g: 0, b: 0), RGBA(r: 0, g: 255, b: 0), RGBA(r: 0, g: 0, b: 255)]
        let g = Compositing.linearGradient(width: 201, height: 1, colors: colours, angleDegrees: 90)
        #expect(g[100, 0].g >= 250 && g[100, 0].r <= 3 && g[100, 0].b <= 3)
        #expect(Compositing.linearGradient(width: 3, height: 3, colors: []) == Image(width: 3, height: 3))
        let solid = RGBA(r: 1, g: 2, b: 3)
        #expect(Compositing.linearGradient(width: 3, height: 3, colors: [solid]) == Image(width: 3, height: 3, fill: solid))
        #expect(Compositing.linearGradient(width: 0, height: -1, colors: colours, angleDegrees: .nan).width == 1)
        // Fading to transparent keeps the colour (premultiplied interpolation, no grey).
        let fade = Compositing.linearGradient(width: 101, height: 1, colors: [solid, RGBA(r: 0, g: 0, b: 0, a: 0)], angleDegrees: 90)
        let mid = fade[50, 0]
        #expect(mid.a > 100 && mid.a < 155 && mid.r == 1 && mid.g == 2 && mid.b == 3)
    }
}
