/// Morphological clean-up of a binary working-resolution labelling (1 = subject).
enum MaskCleanup {
    /// Labels 8-connected components of pixels equal to `value`; returns per-pixel component ids
    /// (−1 elsewhere) and each component's size and whether it touches the border.
    static func components(_ labels: [UInt8], width w: Int, height h: Int, value: UInt8)
        -> (ids: [Int32], sizes: [Int], touchesBorder: [Bool]) {
        var ids = [Int32](repeating: -1, count: w * h)
        var sizes: [Int] = [], border: [Bool] = []
        var stack: [Int] = []
        // Background holes use 4-connectivity so they cannot leak through diagonal gaps of an
        // 8-connected subject outline.
        let eight = value != 0
        for start in 0..<(w * h) where labels[start] == value && ids[start] < 0 {
            let id = Int32(sizes.count)
            var size = 0, touches = false
            ids[start] = id
            stack.append(start)
            while let p = stack.popLast() {
                size += 1
                let x = p % w, y = p / w
                if x == 0 || y == 0 || x == w - 1 || y == h - 1 { touches = true }
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        if !eight && dx != 0 && dy != 0 { continue }
                        let qx = x + dx, qy = y + dy
                        guard qx >= 0, qx < w, qy >= 0, qy < h else { continue }
                        let q = qy * w + qx
                        if labels[q] == value && ids[q] < 0 { ids[q] = id; stack.append(q) }
                    }
                }
            }
            sizes.append(size); border.append(touches)
        }
        return (ids, sizes, border)
    }

    /// Keeps the largest subject component and any other whose area is at least `relativeSize` of it.
    static func keepMainComponents(_ labels: inout [UInt8], width w: Int, height h: Int, relativeSize: Double) {
        let (ids, sizes, _) = components(labels, width: w, height: h, value: 1)
        guard let largest = sizes.max() else { return }
        let keep = sizes.map { Double($0) >= relativeSize * Double(largest) }
        for i in labels.indices where labels[i] == 1 && !keep[Int(ids[i])] { labels[i] = 0 }
    }

    /// Fills background regions enclosed by the subject (not touching the border) whose area is at
    /// most `maxRelativeSize` of the subject's area; bigger enclosed regions are genuine gaps.
    static func fillHoles(_ labels: inout [UInt8], width w: Int, height h: Int, maxRelativeSize: Double) {
        let subject = labels.reduce(0) { $0 + Int($1) }
        let (ids, sizes, border) = components(labels, width: w, height: h, value: 0)
        let fill = sizes.indices.map { !border[$0] && Double(sizes[$0]) <= maxRelativeSize * Double(subject) }
        for i in labels.indices where labels[i] == 0 && fill[Int(ids[i])] { labels[i] = 1 }
    }
}
