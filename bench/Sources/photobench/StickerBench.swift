import Compute
import Foundation
import Imaging
import Inference
import PhotoWorker

/// `photobench sticker [--dir DIR] [--pnm DIR] [--verbose] [--working-size N] [--dump OUTDIR] [--split] [--no-faces]
///  [--net [--mirror] [--net-weight W] [--net-exponent E] [--classical-when-undecided] [--map-cache DIR] | --net-only]
///  [--prompt point|point-own|box|all|box-whole|box-net|parts-oracle|box-oracle] [--focus-sizes P,PM,R,RM] [--own-sizes P,PM]`
///
/// Runs `StickerExtractor.extract` over every image of the sticker-dev corpus (images/NAME.jpg,
/// masks/NAME.png) and prints the mean IoU against the human masks (both thresholded at 128) and the
/// time per image (extraction only, decoding excluded, one core). `--pnm DIR` reads NAME.ppm/NAME.pgm
/// pairs instead (handy while a decoder is unavailable). `--dump` writes each mask as OUTDIR/NAME.pgm.
/// `--split` also prints the mean IoU of the tuning half (the first half of the names in sorted order)
/// and of the held-out half: tune on the first, report the second, so changes are not fitted to the
/// whole corpus. `--no-faces` turns the face prior off (`StickerOptions.detectsFaces`). `--prompt` gives each photo
/// a subject from its human mask: the point deepest inside it, or its tight box (`point-own` cuts as the worker does,
/// `point` in one cut, as the worker did before; `box` maps as the worker does, `box-whole` with the whole photo's map
/// alone, as the worker did before, `box-net` with the box's part's alone; `--focus-sizes` the box's passes at other
/// input sizes, `--own-sizes` a point's own cut's).
enum StickerBench {
    static func run(_ args: [String]) async throws {
        var dir = "corpus/sticker-dev"
        var pnm: String?
        var verbose = false
        var split = false
        var dump: String?
        var options = StickerOptions()
        var useNet = false, netOnly = false, mirror = false
        var mapCache: String?
        var prompt: String?
        var focusSizes: [Int]?, ownSizes: [Int]?
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--dir": i += 1; dir = args[i]
            case "--pnm": i += 1; pnm = args[i]
            case "--verbose", "-v": verbose = true
            case "--split": split = true
            case "--dump": i += 1; dump = args[i]
            case "--working-size": i += 1; options.workingSize = Int(args[i]) ?? options.workingSize
            case "--no-faces": options.detectsFaces = false
            case "--net": useNet = true
            case "--mirror": mirror = true
            case "--net-only": useNet = true; netOnly = true
            case "--net-weight": i += 1; options.subjectMapWeight = Float(args[i]) ?? options.subjectMapWeight
            case "--map-cache": i += 1; mapCache = args[i]
            case "--net-exponent": i += 1; options.subjectMapExponent = Float(args[i]) ?? 1
            case "--classical-when-undecided": options.learnedMapAloneWhenDecisive = true
            case "--prompt": i += 1; prompt = args[i]
            case "--focus-sizes": i += 1; focusSizes = args[i].split(separator: ",").compactMap { Int($0) }
            case "--own-sizes": i += 1; ownSizes = args[i].split(separator: ",").compactMap { Int($0) }
            default: throw BenchError("unknown argument \(args[i])")
            }
            i += 1
        }
        if let dump { try FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: true) }
        let pairs = try loadPairs(dir: dir, pnm: pnm)
        guard !pairs.isEmpty else { throw BenchError("no images found") }
        // Warm-up so the first measurement does not pay for page faults and lazy initialisation.
        _ = try await StickerExtractor.extract(from: pairs[0].image, options: options, on: InlineStages())

        // A point's own cut's networks (resized weights), made once, before the clock.
        let pointOwnCutMap = try ownCutMap(sizes: ownSizes)
        var ious: [Double] = [], times: [Double] = [], confidences: [Double] = [], cpuTimes: [Double] = []
        for pair in pairs {
            let start = DispatchTime.now().uptimeNanoseconds, cpuStart = processCPUTime()
            var options = options
            if useNet {
                if prompt == "box-net" {
                    options.subjectMap = try await cropMap(for: pair.image, within: boundingBox(of: pair.truth),
                                                           mirrored: mirror)
                } else {
                    options.subjectMap = try await subjectMap(for: pair, mirrored: mirror, cache: mapCache)
                }
            }
            if netOnly, let map = options.subjectMap {
                // The network alone: its map at 0.5, resampled to the photo.
                let m = map.thresholdMask(width: pair.image.width, height: pair.image.height)
                let iou = m.intersectionOverUnion(pair.truth)
                ious.append(iou); times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                confidences.append(1); cpuTimes.append((processCPUTime() - cpuStart) * 1000)
                if verbose { print(String(format: "%@  IoU %.3f", pair.name, iou)) }
                continue
            }
            // The map as the pipeline's own stage (cached or computed above), as the worker gives it.
            let map = options.subjectMap
            options.subjectMap = nil
            switch prompt {
            case "point", "point-own": options.subject = .points(include: [deepestPoint(of: pair.truth)], exclude: [])
            case "box", "box-net", "box-whole", "box-oracle": options.subject = .box(boundingBox(of: pair.truth))
            case "all": options.subject = .all
            case nil, "parts-oracle": break
            default: throw BenchError("--prompt point|point-own|box|all|box-whole|box-net|parts-oracle|box-oracle")
            }
            var used = map
            if prompt == "box", let sizes = focusSizes, sizes.count == 4,
               let focus = SubjectNetwork.focusRegion(for: boundingBox(of: pair.truth), width: pair.image.width,
                                                      height: pair.image.height) {
                // Experiment: the photo's pass, its mirror's, the region's and its mirror's at these input sizes
                // (0: left out).
                used = try await sizedFocusMap(for: pair.image, region: focus, sizes: sizes, longSide: options.workingSize)
            } else if prompt == "box" || prompt == "box-oracle", let whole = map,
               let focus = SubjectNetwork.focusRegion(for: boundingBox(of: pair.truth), width: pair.image.width,
                                                      height: pair.image.height) {
                // As the worker maps a box round a small subject (`StickerStage.extract`), the photo's map from the
                // cache.
                let part = try await SubjectNetwork.map(for: pair.image, region: focus, mirrored: mirror,
                                                        networks: try SubjectNetwork.Networks.load(), on: InlineStages(), memory: activations)
                used = whole.averaged(with: part, of: focus, photoWidth: pair.image.width, photoHeight: pair.image.height,
                                      longSide: options.workingSize)
            }
            let sticker: Sticker
            if prompt == "box-oracle", let used {
                sticker = boxOracle(pair, map: used)
            } else if prompt == "parts-oracle" {
                sticker = try await partsOracle(pair, options: options, map: used)
            } else if prompt == "point-own", let whole = used {
                sticker = try await StickerExtractor.extract(from: pair.image, options: options, photoMap: { whole },
                                                             ownCutMap: pointOwnCutMap, on: InlineStages())
            } else {
                sticker = try await StickerExtractor.extract(from: pair.image, options: options,
                                                             subjectMap: used.map { map in { @Sendable in map } }, on: InlineStages())
            }
            let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            cpuTimes.append((processCPUTime() - cpuStart) * 1000)
            let iou = sticker.mask.intersectionOverUnion(pair.truth)
            if let dump {
                let header = Array("P5\n\(sticker.mask.width) \(sticker.mask.height)\n255\n".utf8)
                try Data(header + sticker.mask.values).write(to: URL(fileURLWithPath: "\(dump)/\(pair.name).pgm"))
            }
            ious.append(iou); times.append(ms); confidences.append(sticker.confidence)
            if verbose {
                print(String(format: "%@  IoU %.3f  conf %.2f  cover %.2f  %.1f ms", pair.name, iou, sticker.confidence, sticker.coverage, ms))
            }
        }
        let meanIoU = ious.reduce(0, +) / Double(ious.count)
        let meanMs = times.reduce(0, +) / Double(times.count)
        let medianMs = times.sorted()[times.count / 2]
        print(String(format: "sticker: %d images  mean IoU %.3f  median IoU %.3f  IoU>0.5: %d",
                     ious.count, meanIoU, ious.sorted()[ious.count / 2], ious.filter { $0 > 0.5 }.count))
        if split {
            // `loadPairs` returns the names sorted, so the halves are fixed by name.
            let half = ious.count / 2
            let tune = ious[..<half], held = ious[half...]
            print(String(format: "sticker: split  tuning half (%d) mean IoU %.3f  held-out half (%d) mean IoU %.3f  all %.3f",
                         tune.count, tune.reduce(0, +) / Double(tune.count),
                         held.count, held.reduce(0, +) / Double(held.count), meanIoU))
        }
        print(String(format: "sticker: %.1f ms/image mean, %.1f ms median, %.1f ms max (workingSize %d, one core)",
                     meanMs, medianMs, times.max() ?? 0, options.workingSize))
        print(String(format: "sticker: %.1f ms/image CPU time of the process (mean; robust to a busy machine)",
                     cpuTimes.reduce(0, +) / Double(cpuTimes.count)))
        print(String(format: "sticker: confidence vs IoU Pearson r = %.2f", pearson(confidences, ious)))
    }

    struct Pair { var name: String; var image: Image; var truth: Mask }

    /// `--prompt box-oracle`: the map the worker cuts a box with (the photo's, averaged with the box's part's for a box
    /// under half the photo), inside the box, split at the threshold (0.05 ... 0.95) that gives the best IoU with the
    /// true mask: what a box could give by where it splits the map, with the true mask in hand (a bound, not a method).
    static func boxOracle(_ pair: Pair, map: SubjectMap) -> Sticker {
        let w = pair.image.width, h = pair.image.height, box = boundingBox(of: pair.truth)
        let values = map.resized(width: w, height: h).values
        var best = Mask(width: w, height: h, repeating: 0), bestIoU = -1.0
        for step in 1...19 {
            let t = Float(step) / 20
            var mask = Mask(width: w, height: h, repeating: 0)
            for y in box.y..<(box.y + box.height) {
                for x in box.x..<(box.x + box.width) where values[y * w + x] >= t { mask.values[y * w + x] = 255 }
            }
            let iou = mask.intersectionOverUnion(pair.truth)
            if iou > bestIoU { (best, bestIoU) = (mask, iou) }
        }
        return Sticker(image: pair.image, boundingBox: box, origin: (box.x, box.y), coverage: 0, confidence: 1, mask: best)
    }

    /// `--prompt parts-oracle`: the most any choice among the parts of the unprompted cut can give, so the most a
    /// point (which selects parts, and cannot move the cut's edges) can gain: the parts the photo's cut lists
    /// (`StickerExtractor.subjects`, one round, no own cuts) of which at least half lies in the true mask, kept
    /// together as points do; the part with the most in the mask when none has half; the unprompted sticker when
    /// there are no parts. It reads the true mask, so it is a bound, not a method.
    static func partsOracle(_ pair: Pair, options: StickerOptions, map: SubjectMap?) async throws -> Sticker {
        let found = try await StickerExtractor.subjects(in: pair.image, options: options,
                                                        subjectMap: map.map { m in { @Sendable _ in m } }, rounds: 1,
                                                        refines: false, on: InlineStages())
        guard !found.subjects.isEmpty else {
            return try await StickerExtractor.extract(from: pair.image, options: options,
                                                      subjectMap: map.map { m in { @Sendable in m } }, on: InlineStages())
        }
        let inside = try found.subjects.indices.map { i -> (share: Double, count: Int) in
            let mask = try found.sticker(of: i, from: pair.image, on: .inTurn).mask
            var all = 0, hit = 0
            for (v, t) in zip(mask.values, pair.truth.values) where v >= 128 {
                all += 1
                if t >= 128 { hit += 1 }
            }
            return (all > 0 ? Double(hit) / Double(all) : 0, hit)
        }
        var chosen = found.subjects.indices.filter { inside[$0].share >= 0.5 }
        if chosen.isEmpty, let best = found.subjects.indices.max(by: { inside[$0].count < inside[$1].count }) { chosen = [best] }
        return try found.sticker(from: pair.image, subject: .points(include: chosen.map { found.subjects[$0].point },
                                                                    exclude: []), on: .inTurn)
    }

    /// `--prompt box-net` (an experiment, not the worker's): the network's map of the part of the photo inside the box
    /// (grown by a tenth of its size a side), placed on a map of the whole photo (480 px long side, 0 outside), so the
    /// network sees the boxed subject large; in place of the map of the whole photo.
    static func cropMap(for image: Image, within box: PixelRect, mirrored: Bool) async throws -> SubjectMap {
        let gx = box.width / 10, gy = box.height / 10
        let x0 = max(0, box.x - gx), y0 = max(0, box.y - gy)
        let x1 = min(image.width, box.x + box.width + gx), y1 = min(image.height, box.y + box.height + gy)
        let part = Compositing.crop(image, x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let inner = try await SubjectNetwork.map(for: part, mirrored: mirrored, networks: try SubjectNetwork.Networks.load(),
                                                 on: InlineStages(), memory: activations)
        let scale = 480 / Double(max(image.width, image.height))
        let mw = max(1, Int((Double(image.width) * scale).rounded())), mh = max(1, Int((Double(image.height) * scale).rounded()))
        let pw = max(1, Int((Double(x1 - x0) * scale).rounded())), ph = max(1, Int((Double(y1 - y0) * scale).rounded()))
        let placed = inner.resized(width: pw, height: ph)
        let ox = min(mw - 1, Int((Double(x0) * scale).rounded())), oy = min(mh - 1, Int((Double(y0) * scale).rounded()))
        var values = [Float](repeating: 0, count: mw * mh)
        for y in 0..<min(ph, mh - oy) { for x in 0..<min(pw, mw - ox) { values[(y + oy) * mw + x + ox] = placed.values[y * pw + x] } }
        return SubjectMap(width: mw, height: mh, values: values)
    }

    /// `--focus-sizes P,PM,R,RM`: the map of a small box as the worker makes it, with the photo's pass at P, its
    /// mirror image's at PM, the region's at R and its mirror's at RM (0 leaves a pass out; P 0: the region's map
    /// alone).
    static func sizedFocusMap(for image: Image, region: PixelRect, sizes: [Int], longSide: Int) async throws -> SubjectMap {
        let part = try await SubjectNetwork.map(for: image, region: region, mirrored: sizes[3] > 0,
                                                networks: try sizedNetworks(sizes[2], sizes[3]), on: InlineStages(), memory: activations)
        guard sizes[0] > 0 else {
            return SubjectMap(width: 1, height: 1, values: [0]).averaged(with: part, of: region, photoWidth: image.width,
                                                                          photoHeight: image.height, longSide: longSide)
        }
        let whole = try await SubjectNetwork.map(for: image, mirrored: sizes[1] > 0,
                                                 networks: try sizedNetworks(sizes[0], sizes[1]), on: InlineStages(), memory: activations)
        return whole.averaged(with: part, of: region, photoWidth: image.width, photoHeight: image.height,
                              longSide: longSide)
    }

    /// U²-Netp with the photo's pass at `side` and its mirror image's at `mirrorSide` (at least 32: a left-out mirror
    /// pass is the caller's `mirrored: false`).
    static func sizedNetworks(_ side: Int, _ mirrorSide: Int) throws -> SubjectNetwork.Networks {
        let base = try Network.u2netp.get()
        let d = side == base.inputWidth ? base : try base.resized(toHeight: side, width: side)
        let m = try base.resized(toHeight: max(mirrorSide, 32), width: max(mirrorSide, 32))
        return SubjectNetwork.Networks(direct: d, mirror: m)
    }

    /// The map of a point's own cut (`--own-sizes P,PM`): its photo's pass at P, the mirror image's at PM (0: none);
    /// by default the worker's, one pass at the mirror network's 256.
    static func ownCutMap(sizes: [Int]?) throws -> @Sendable (Image) async throws -> SubjectMap {
        let sizes = sizes ?? [256, 0]
        guard sizes.count == 2 else { throw BenchError("own-cut sizes: P,PM (PM 0 for no mirror pass)") }
        let networks = try sizedNetworks(sizes[0], sizes[1])
        return { photo in
            try await SubjectNetwork.map(for: photo, mirrored: sizes[1] > 0, networks: networks, on: InlineStages(), memory: activations)
        }
    }

    /// The pixel of `mask` (>= 128) farthest from its edge (chamfer 3-4 distance): "a point deep inside the subject".
    static func deepestPoint(of mask: Mask) -> PixelPoint {
        let w = mask.width, h = mask.height, far = Int32(1 << 28)
        var d = mask.values.map { $0 >= 128 ? far : Int32(0) }
        for y in 0..<h {
            for x in 0..<w where d[y * w + x] > 0 {
                var v = d[y * w + x]
                v = min(v, x > 0 ? d[y * w + x - 1] + 3 : 3)
                v = min(v, y > 0 ? d[(y - 1) * w + x] + 3 : 3)
                if y > 0 && x > 0 { v = min(v, d[(y - 1) * w + x - 1] + 4) }
                if y > 0 && x < w - 1 { v = min(v, d[(y - 1) * w + x + 1] + 4) }
                d[y * w + x] = v
            }
        }
        var best = 0
        for y in stride(from: h - 1, through: 0, by: -1) {
            for x in stride(from: w - 1, through: 0, by: -1) where d[y * w + x] > 0 {
                var v = d[y * w + x]
                v = min(v, x < w - 1 ? d[y * w + x + 1] + 3 : 3)
                v = min(v, y < h - 1 ? d[(y + 1) * w + x] + 3 : 3)
                if y < h - 1 && x < w - 1 { v = min(v, d[(y + 1) * w + x + 1] + 4) }
                if y < h - 1 && x > 0 { v = min(v, d[(y + 1) * w + x - 1] + 4) }
                d[y * w + x] = v
                if v > d[best] { best = y * w + x }
            }
        }
        return PixelPoint(x: best % w, y: best / w)
    }

    /// The tight box round `mask`'s pixels >= 128 (the whole image for an empty mask).
    static func boundingBox(of mask: Mask) -> PixelRect {
        let w = mask.width, h = mask.height
        var x0 = w, y0 = h, x1 = -1, y1 = -1
        for y in 0..<h { for x in 0..<w where mask.values[y * w + x] >= 128 { x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y) } }
        return x1 < 0 ? PixelRect(x: 0, y: 0, width: w, height: h) : PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }

    /// The passes' activation blocks, kept from photo to photo as the worker keeps them.
    static let activations = ActivationMemory()

    /// The network's map of a photo, read from `cache` (DIR/NAME[.mirrored].f32, raw floats at the
    /// network's size) when it holds it, else computed and written there: tuning the fusion then
    /// re-runs only the cut. The cache does not know which engine wrote it: empty it after changing
    /// the network or its input.
    static func subjectMap(for pair: Pair, mirrored: Bool, cache: String?) async throws -> SubjectMap {
        let networks = try SubjectNetwork.Networks.load()
        guard let cache else {
            return try await SubjectNetwork.map(for: pair.image, mirrored: mirrored, networks: networks, on: InlineStages(), memory: activations)
        }
        let url = URL(fileURLWithPath: "\(cache)/\(pair.name)\(mirrored ? ".mirrored" : "").f32")
        let network = try Network.u2netp.get()
        let w = network.inputWidth, h = network.inputHeight
        if let data = try? Data(contentsOf: url), data.count == w * h * 4 {
            return SubjectMap(width: w, height: h, values: data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) })
        }
        let map = try await SubjectNetwork.map(for: pair.image, mirrored: mirrored, networks: networks, on: InlineStages(), memory: activations)
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        try map.values.withUnsafeBytes { try Data($0).write(to: url) }
        return map
    }

    struct BenchError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    static func loadPairs(dir: String, pnm: String?) throws -> [Pair] {
        let fm = FileManager.default
        if let pnm {
            let names = try fm.contentsOfDirectory(atPath: pnm).filter { $0.hasSuffix(".ppm") }.sorted()
            return try names.map { file in
                let name = String(file.dropLast(4))
                let (w, h, rgb) = try readPNM(pnm + "/" + file, channels: 3)
                var rgba = [UInt8](repeating: 255, count: w * h * 4)
                for p in 0..<(w * h) { for c in 0..<3 { rgba[4 * p + c] = rgb[3 * p + c] } }
                let (mw, mh, gray) = try readPNM(pnm + "/" + name + ".pgm", channels: 1)
                return Pair(name: name, image: Image(width: w, height: h, pixels: rgba),
                            truth: Mask(width: mw, height: mh, values: gray.map { $0 >= 128 ? 255 : 0 }))
            }
        }
        let names = try fm.contentsOfDirectory(atPath: dir + "/images").filter { $0.hasSuffix(".jpg") }.sorted()
        return try names.map { file in
            let name = String(file.dropLast(4))
            guard let jpeg = self.fm(dir + "/images/" + file), let png = self.fm(dir + "/masks/" + name + ".png") else {
                throw BenchError("cannot read \(name)")
            }
            let image = try ImageCodec.decode(jpeg, on: .inTurn).image
            let truth = try ImageCodec.decode(png, on: .inTurn).image
            // 1-bit masks: any non-zero grey is subject, whatever the decoder's bit-depth scaling.
            var values = [UInt8](repeating: 0, count: truth.pixelCount)
            for p in 0..<truth.pixelCount where truth.pixels[4 * p] > 0 { values[p] = 255 }
            return Pair(name: name, image: image, truth: Mask(width: truth.width, height: truth.height, values: values))
        }
    }

    /// Minimal binary PPM (P6) / PGM (P5) reader, 8-bit only.
    static func readPNM(_ path: String, channels: Int) throws -> (Int, Int, [UInt8]) {
        guard let data = fm(path) else { throw BenchError("cannot read \(path)") }
        var fields: [Int] = []
        var i = 2
        while fields.count < 3 {
            while i < data.count, data[i] == 0x20 || data[i] == 0x0A || data[i] == 0x0D || data[i] == 0x09 { i += 1 }
            if i < data.count, data[i] == 0x23 { while i < data.count, data[i] != 0x0A { i += 1 }; continue }
            var v = 0
            while i < data.count, data[i] >= 0x30, data[i] <= 0x39 { v = v * 10 + Int(data[i] - 0x30); i += 1 }
            fields.append(v)
        }
        i += 1
        let (w, h) = (fields[0], fields[1])
        guard data.count - i >= w * h * channels else { throw BenchError("short file \(path)") }
        return (w, h, Array(data[i..<(i + w * h * channels)]))
    }

    private static func fm(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// CPU seconds consumed by the calling thread.
    static func threadCPUTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The process's CPU time: the sticker's stages run inline in an async task, which may resume on another
    /// thread after each stage, so a thread's clock misses part of the work; nothing else runs meanwhile.
    static func processCPUTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func pearson(_ a: [Double], _ b: [Double]) -> Double {
        let n = Double(a.count)
        let ma = a.reduce(0, +) / n, mb = b.reduce(0, +) / n
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for k in a.indices { sab += (a[k] - ma) * (b[k] - mb); saa += (a[k] - ma) * (a[k] - ma); sbb += (b[k] - mb) * (b[k] - mb) }
        return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : 0
    }
}
