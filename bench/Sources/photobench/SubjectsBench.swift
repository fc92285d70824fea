import Compute
import Foundation
import Imaging
import PhotoWorker

/// `photobench subjects [--dir .build/pairs-set] [--map-cache DIR] [--rounds N] [--no-own-cuts] [--point-one-cut]
///  [--own-sizes P,PM] [--subjects-own-sizes P,PM] [--half T|H] [--alone] [--verbose]`
///
/// The two-subject photos `bench/make_pairs_set.py` makes (two sticker-dev photos side by side, both human masks
/// known), cut as the worker cuts by default (U²-Netp's map of the photo and its mirror image, square-rooted, weight
/// 0.8, 480 px, the classical maps only where the map is undecided). Per half (T- tuning, H- held-out):
/// - found: the share of photos where `StickerExtractor.subjects` finds both (a subject whose box has IoU >= 0.5
///   with each true mask's box);
/// - by point: for each side, the sticker of `SubjectPrompt.point` at the pixel of its true mask farthest from the
///   mask's edge, cut from the same stages: its mean IoU with its own mask and with the other's, and the share of
///   sides with IoU >= 0.7 with its own and < 0.1 with the other's; and the same for the point's sticker as
///   `image.sticker` cuts it (`StickerExtractor.extract(from:options:photoMap:ownCutMap:on:)`, not the subjects' stages;
///   `--point-one-cut`: the whole photo's cut alone with the point as its prompt, as the worker cut it before;
///   `--own-sizes P,PM`: the point's own cut with the photo's pass at P and its mirror image's at PM, 0 for none,
///   by default the worker's 256, 0; `--subjects-own-sizes P,PM`: the subjects' own cuts' passes, by default the
///   worker's 256, 0 too, 320,256 for the search's two passes).
/// `--alone`: each photo of the pairs also searched on its own (its part of the pair, from `NAME.json`), found when a
/// subject's box has IoU >= 0.5 with its mask's: the share of pairs whose two photos are both found alone is what
/// the pair's search could reach if putting two photos side by side cost nothing.
/// `--half T` runs the tuning half alone (what a change is chosen on), `--half H` the held-out half.
enum SubjectsBench {
    static func run(_ args: [String]) async throws {
        var dir = ".build/pairs-set", cache: String?, verbose = false, rounds = 3, refines = true, pointOwn = true
        var ownSizes: [Int]?, subjectsOwnSizes: [Int]?, onlyHalf: String?, searchAlone = false
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--dir": i += 1; dir = args[i]
            case "--map-cache": i += 1; cache = args[i]
            case "--verbose", "-v": verbose = true
            case "--rounds": i += 1; rounds = Int(args[i]) ?? rounds
            case "--no-own-cuts": refines = false
            case "--point-one-cut": pointOwn = false
            case "--own-sizes": i += 1; ownSizes = args[i].split(separator: ",").compactMap { Int($0) }
            case "--subjects-own-sizes": i += 1; subjectsOwnSizes = args[i].split(separator: ",").compactMap { Int($0) }
            case "--half": i += 1; onlyHalf = args[i]
            case "--alone": searchAlone = true
            default: throw StickerBench.BenchError("unknown argument \(args[i])")
            }
            i += 1
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
            .filter { $0.hasSuffix(".png") && !$0.contains(".left") && !$0.contains(".right") }
            .map { String($0.dropLast(4)) }.filter { onlyHalf.map($0.hasPrefix) ?? true }.sorted()
        guard !names.isEmpty else { throw StickerBench.BenchError("no pairs in \(dir): run bench/make_pairs_set.py") }
        var options = StickerOptions()
        options.subjectMapWeight = 0.8
        options.subjectMapExponent = 0.5
        options.workingSize = 480
        options.learnedMapAloneWhenDecisive = true
        struct Row {
            var half: String, both: Bool, own: [Double], other: [Double], count: Int
            /// The point's sticker as `image.sticker` cuts it (one cut of the whole photo, the point as its prompt).
            var alone: [(own: Double, other: Double)]
            /// With `--alone`: whether each side's photo, searched on its own, is found.
            var foundAlone: [Bool]?
        }
        /// Whether each photo, searched on its own, is found (by photo name: each is in two pairs).
        var foundAloneByPhoto: [String: (half: String, found: Bool)] = [:]
        var rows: [Row] = []
        // The own cuts' networks (resized weights), made once.
        let pointOwnCutMap = try StickerBench.ownCutMap(sizes: ownSizes)
        let subjectsOwnCutMap = try StickerBench.ownCutMap(sizes: subjectsOwnSizes)
        for name in names {
            func load(_ file: String) throws -> Image {
                guard let data = FileManager.default.contents(atPath: "\(dir)/\(file)") else {
                    throw StickerBench.BenchError("cannot read \(file)")
                }
                let decoded = try ImageCodec.decode([UInt8](data), on: .inTurn)
                return decoded.image
            }
            func mask(_ image: Image) -> Mask {
                Mask(width: image.width, height: image.height, values: (0..<image.pixelCount).map { image.pixels[4 * $0] >= 128 ? 255 : 0 })
            }
            let image = try load("\(name).png")
            let truths = [mask(try load("\(name).left.png")), mask(try load("\(name).right.png"))]
            // The first round's map from the cache; the later rounds' (the photo with subjects covered) computed.
            let first = try await StickerBench.subjectMap(for: .init(name: "pair-" + name, image: image, truth: truths[0]),
                                                          mirrored: true, cache: cache)
            let networks = try SubjectNetwork.Networks.load()
            let mapOf: @Sendable (Image) async throws -> SubjectMap = { photo in
                photo == image ? first : try await SubjectNetwork.map(for: photo, mirrored: true, networks: networks,
                                                                       on: InlineStages(), memory: StickerBench.activations)
            }
            let found = try await StickerExtractor.subjects(in: image, options: options, subjectMap: mapOf, rounds: rounds,
                                                            refines: refines,
                                                            ownCutMap: subjectsOwnCutMap, on: InlineStages())
            let boxes = truths.map(StickerBench.boundingBox(of:))
            let both = boxes.allSatisfy { truth in found.subjects.contains { boxIoU($0.box, truth) >= 0.5 } }
            var own: [Double] = [], other: [Double] = [], alone: [(own: Double, other: Double)] = []
            for side in 0..<2 {
                let point = StickerBench.deepestPoint(of: truths[side])
                let sticker = try found.sticker(from: image, subject: .points(include: [point], exclude: []), on: .inTurn)
                own.append(sticker.mask.intersectionOverUnion(truths[side]))
                other.append(sticker.mask.intersectionOverUnion(truths[1 - side]))
                var prompted = options
                prompted.subject = .points(include: [point], exclude: [])
                let cut = pointOwn
                    ? try await StickerExtractor.extract(from: image, options: prompted, photoMap: { first }, ownCutMap: pointOwnCutMap, on: InlineStages())
                    : try await StickerExtractor.extract(from: image, options: prompted, subjectMap: { first }, on: InlineStages())
                alone.append((cut.mask.intersectionOverUnion(truths[side]), cut.mask.intersectionOverUnion(truths[1 - side])))
            }
            var foundAlone: [Bool]?
            if searchAlone {
                struct Split: Decodable { let left: String, right: String, split: Int }
                guard let data = FileManager.default.contents(atPath: "\(dir)/\(name).json"),
                      let split = try? JSONDecoder().decode(Split.self, from: data) else {
                    throw StickerBench.BenchError("no \(name).json: run bench/make_pairs_set.py again")
                }
                var sides: [Bool] = []
                for (side, photo) in [split.left, split.right].enumerated() {
                    if let known = foundAloneByPhoto[photo] { sides.append(known.found); continue }
                    let x = side == 0 ? 0 : split.split, w = side == 0 ? split.split : image.width - split.split
                    let part = Compositing.crop(image, x: x, y: 0, width: w, height: image.height)
                    let truth = StickerBench.boundingBox(of: truths[side])
                    let moved = PixelRect(x: truth.x - x, y: truth.y, width: truth.width, height: truth.height)
                    let own = try await StickerExtractor.subjects(in: part, options: options, subjectMap: mapOf, rounds: rounds,
                                                                  refines: refines, ownCutMap: subjectsOwnCutMap, on: InlineStages())
                    let found = own.subjects.contains { boxIoU($0.box, moved) >= 0.5 }
                    foundAloneByPhoto[photo] = (String(name.prefix(1)), found)
                    sides.append(found)
                }
                foundAlone = sides
            }
            rows.append(Row(half: String(name.prefix(1)), both: both, own: own, other: other, count: found.subjects.count,
                            alone: alone, foundAlone: foundAlone))
            if verbose {
                print(String(format: "%@  subjects %d  both %@  left own %.3f other %.3f  right own %.3f other %.3f%@", name,
                             found.subjects.count, both ? "yes" : "no", own[0], other[0], own[1], other[1],
                             foundAlone.map { "  alone " + $0.map { $0 ? "yes" : "no" }.joined(separator: "/") } ?? ""))
                func text(_ b: PixelRect) -> String { "[\(b.x),\(b.y),\(b.x + b.width),\(b.y + b.height)]" }
                print("    truth \(boxes.map(text).joined(separator: " "))  found "
                      + found.subjects.map { "\(text($0.box)) s\(String(format: "%.2f", $0.score))" }.joined(separator: " ")
                      + "  width \(image.width)")
            }
        }
        for (label, half) in [("tuning half", "T"), ("held-out half", "H"), ("all", "")] {
            let r = rows.filter { half.isEmpty || $0.half == half }
            guard !r.isEmpty else { continue }
            let sides = r.flatMap { row in zip(row.own, row.other).map { ($0, $1) } }
            let ok = sides.filter { $0.0 >= 0.7 && $0.1 < 0.1 }.count
            print(String(format: "subjects: %@ (%d photos)  both found %.1f%%  by point: own IoU %.3f, other's %.3f, "
                         + "own >= 0.7 and other's < 0.1 in %.1f%% of %d sides  (%.1f subjects a photo)",
                         label, r.count, 100 * Double(r.filter(\.both).count) / Double(r.count),
                         sides.map(\.0).reduce(0, +) / Double(sides.count), sides.map(\.1).reduce(0, +) / Double(sides.count),
                         100 * Double(ok) / Double(sides.count), sides.count,
                         Double(r.map(\.count).reduce(0, +)) / Double(r.count)))
            let aloneRows = r.compactMap(\.foundAlone)
            if !aloneRows.isEmpty {
                let bothAlone = r.filter { $0.foundAlone == [true, true] }
                let photos = foundAloneByPhoto.values.filter { half.isEmpty || $0.half == half }
                print(String(format: "subjects: %@  each photo searched alone: %d of %d photos found, both in %.1f%% of the "
                             + "pairs (the pair itself: %.1f%% of those, %.1f%% of the others)", label,
                             photos.filter(\.found).count, photos.count,
                             100 * Double(bothAlone.count) / Double(aloneRows.count),
                             100 * Double(bothAlone.filter(\.both).count) / Double(max(1, bothAlone.count)),
                             100 * Double(r.filter { $0.foundAlone != [true, true] && $0.both }.count)
                                 / Double(max(1, r.count - bothAlone.count))))
            }
            let alone = r.flatMap(\.alone)
            print(String(format: "subjects: %@  image.sticker with the point: own IoU %.3f, other's %.3f, own >= 0.7 and "
                         + "other's < 0.1 in %.1f%% of %d sides", label,
                         alone.map(\.own).reduce(0, +) / Double(alone.count), alone.map(\.other).reduce(0, +) / Double(alone.count),
                         100 * Double(alone.filter { $0.own >= 0.7 && $0.other < 0.1 }.count) / Double(alone.count), alone.count))
        }
    }

    static func boxIoU(_ a: PixelRect, _ b: PixelRect) -> Double {
        let ix = max(0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
        let iy = max(0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
        let inter = Double(ix * iy), union = Double(a.width * a.height + b.width * b.height) - inter
        return union > 0 ? inter / union : 0
    }
}
