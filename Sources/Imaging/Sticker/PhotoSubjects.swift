import Compute
import Foundation

/// One subject of a photo, as `StickerExtractor.subjects(in:options:subjectMap:on:)` finds it.
public struct DetectedSubject: Sendable, Equatable {
    /// Its extent in the photo's pixels.
    public var box: PixelRect
    /// Share of the photo it covers, 0...1.
    public var area: Double
    /// How much of a subject it is, 0...1: the mean of the cut's saliency prior over it (the learned map's share
    /// leading, when there is one).
    public var score: Double
    /// A pixel well inside it (the farthest from its edge): as `SubjectPrompt.point`, it selects this subject.
    public var point: PixelPoint
}

/// The separate subjects of a photo, largest first, and what it takes to cut any of them out without segmenting the
/// photo again (each round's plan and cuts).
public struct PhotoSubjects: Sendable {
    public let subjects: [DetectedSubject]
    /// The round (index into `rounds`) each subject was found in.
    let foundIn: [Int]
    struct Round: Sendable {
        /// The part of the photo the round cut (the whole photo in the first round).
        let area: PixelRect
        let plan: StickerCutPlan
        let cuts: (pixel: StickerCutPlan.Cut, region: StickerCutPlan.Cut)
        let options: StickerOptions
        /// Whether the round is a found subject's own cut (its box grown by a tenth), not a round of the search.
        var ownCut = false

        /// Whether the round's cut has a part at (or a pixel or two from) `point`, a pixel of the photo; false off
        /// its area.
        func hasPart(at point: PixelPoint, on loop: some ParallelLoop) throws -> Bool {
            guard area.contains(point) else { return false }
            return try plan.hasPart(at: PixelPoint(x: point.x - area.x, y: point.y - area.y), cuts: cuts,
                                    sourceWidth: area.width, sourceHeight: area.height, on: loop)
        }
    }
    let rounds: [Round]

    /// The sticker of subject `index` (its ``DetectedSubject/point`` as the prompt, in the round that found it).
    /// - Throws: `CancellationError`.
    public func sticker(of index: Int, from image: Image, on loop: some ParallelLoop) throws -> Sticker {
        try sticker(from: image, subject: .points(include: [subjects[index].point], exclude: []), round: foundIn[index],
                    on: loop)
    }

    /// The sticker of the subject `prompt` selects: for points, from the smallest of the subjects' own cuts with a
    /// part under its first point, else from the first round of the search whose cut has one; the first round for
    /// other prompts (and when no cut has a part there).
    /// - Throws: `CancellationError`.
    public func sticker(from image: Image, subject prompt: SubjectPrompt, on loop: some ParallelLoop) throws -> Sticker {
        guard case .points(let include, _) = prompt, let first = include.first else {
            return try sticker(from: image, subject: prompt, round: 0, on: loop)
        }
        func size(_ i: Int) -> Int { rounds[i].area.width * rounds[i].area.height }
        let own = Set(foundIn).filter { rounds[$0].ownCut }.sorted { (size($0), $0) < (size($1), $1) }
        let search = rounds.indices.filter { !rounds[$0].ownCut }
        let round = try (own + search).first { try rounds[$0].hasPart(at: first, on: loop) } ?? 0
        return try sticker(from: image, subject: prompt, round: round, on: loop)
    }

    /// The unprompted subject of round `round`'s cut, which must be of the whole photo: the cut the photo gets
    /// without a subject.
    func subjectCut(from image: Image, round: Int, on loop: some ParallelLoop) throws -> SubjectCut {
        precondition(rounds[round].area == PixelRect(x: 0, y: 0, width: image.width, height: image.height),
                     "an unprompted cut is the whole photo's")
        var plan = rounds[round].plan
        plan.subject = nil
        return try plan.subjectCut(of: image, cuts: rounds[round].cuts, options: rounds[round].options, on: loop)
    }

    func sticker(from image: Image, subject prompt: SubjectPrompt, round: Int, on loop: some ParallelLoop) throws -> Sticker {
        try StickerExtractor.makeSticker(image, cut: subjectCut(from: image, subject: prompt, round: round, on: loop),
                                         options: rounds[round].options, on: loop)
    }

    func subjectCut(from image: Image, subject prompt: SubjectPrompt, round: Int, on loop: some ParallelLoop) throws
        -> SubjectCut {
        let r = rounds[round]
        var plan = r.plan
        guard r.area != PixelRect(x: 0, y: 0, width: image.width, height: image.height) else {
            plan.subject = prompt
            return try plan.subjectCut(of: image, cuts: r.cuts, options: r.options, on: loop)
        }
        // A later round cut a part of the photo: the prompt moved into it, the subject cut from the part in place.
        plan.subject = prompt.moved(by: -r.area.x, -r.area.y, within: r.area)
        return try plan.subjectCut(of: image, region: r.area, cuts: r.cuts, options: r.options, on: loop)
    }
}

extension SubjectPrompt {
    /// The prompt in the coordinates of `area`, moved by dx, dy: the points that fall inside it (a point outside says
    /// nothing about the part cut, and on its edge it would pick or drop what lies there), or, when none of those to
    /// keep does, the first moved onto its edge; the box as it is (the cut clips it).
    func moved(by dx: Int, _ dy: Int, within area: PixelRect) -> SubjectPrompt {
        func move(_ p: PixelPoint) -> PixelPoint {
            PixelPoint(x: min(area.width - 1, max(0, p.x + dx)), y: min(area.height - 1, max(0, p.y + dy)))
        }
        func inside(_ p: PixelPoint) -> Bool {
            p.x + dx >= 0 && p.y + dy >= 0 && p.x + dx < area.width && p.y + dy < area.height
        }
        switch self {
        case .all: return .all
        case .points(let include, let exclude):
            let kept = include.filter(inside)
            return .points(include: (kept.isEmpty ? Array(include.prefix(1)) : kept).map(move),
                           exclude: exclude.filter(inside).map(move))
        case .box(let b): return .box(PixelRect(x: b.x + dx, y: b.y + dy, width: b.width, height: b.height))
        }
    }
}

extension StickerCutPlan {
    /// The separate parts of the cuts' consensus at least ``minimumSubjectShare`` of the photo (and a twentieth of the
    /// largest), largest first. A decided plan has one subject (its mask) when it is confident, none otherwise.
    func subjects(cuts: (pixel: Cut, region: Cut), sourceWidth sw: Int, sourceHeight sh: Int,
                  on loop: some ParallelLoop) throws -> [DetectedSubject] {
        guard case .cuts(let work, let saliency, _, _) = content, let labels = try consensus(cuts, on: loop) else {
            guard case .decided(let mask, let confidence) = content, confidence > 0 else { return [] }
            let binary = mask.values.map { $0 >= 128 ? UInt8(1) : 0 }
            return Self.parts(binary, width: sw, height: sh, saliency: nil, sourceWidth: sw, sourceHeight: sh)
        }
        var filled = labels
        MaskCleanup.fillHoles(&filled, width: work.width, height: work.height, maxRelativeSize: 0.1)
        return Self.parts(filled, width: work.width, height: work.height, saliency: saliency.values, sourceWidth: sw,
                          sourceHeight: sh)
    }

    /// Whether the cuts' consensus has a part at (or a pixel or two from) `point`, a pixel of the photo.
    func hasPart(at point: PixelPoint, cuts: (pixel: Cut, region: Cut), sourceWidth sw: Int, sourceHeight sh: Int,
                 on loop: some ParallelLoop) throws -> Bool {
        guard case .cuts(let work, _, _, _) = content, let labels = try consensus(cuts, on: loop) else { return false }
        let w = work.width, h = work.height
        let x = min(w - 1, max(0, Int((Double(point.x) + 0.5) * Double(w) / Double(sw))))
        let y = min(h - 1, max(0, Int((Double(point.y) + 0.5) * Double(h) / Double(sh))))
        let (ids, _, _) = MaskCleanup.components(labels, width: w, height: h, value: 1)
        return SubjectSelection.component(at: y * w + x, ids: ids, width: w, height: h, radius: max(1, max(w, h) / 100)) >= 0
    }

    /// Smallest share of the photo a part must cover to count as a subject.
    static let minimumSubjectShare = 0.005

    static func parts(_ labels: [UInt8], width w: Int, height h: Int, saliency: [Float]?, sourceWidth sw: Int,
                      sourceHeight sh: Int) -> [DetectedSubject] {
        let (ids, sizes, _) = MaskCleanup.components(labels, width: w, height: h, value: 1)
        guard let largest = sizes.max() else { return [] }
        let kept = sizes.indices.filter {
            Double(sizes[$0]) >= minimumSubjectShare * Double(w * h) && sizes[$0] * 20 >= largest
        }
        let distance = ConsensusGrowth.chamferDistance(to: labels.map { 1 - $0 }, width: w, height: h)
        let sx = Double(sw) / Double(w), sy = Double(sh) / Double(h)
        var found: [(size: Int, subject: DetectedSubject)] = []
        for id in kept {
            var x0 = w, y0 = h, x1 = -1, y1 = -1, sum = 0.0, deepest = -1
            for p in 0..<(w * h) where ids[p] == Int32(id) {
                let x = p % w, y = p / w
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                sum += Double(saliency?[p] ?? 1)
                if deepest < 0 || distance[p] > distance[deepest] { deepest = p }
            }
            let bx0 = Int(Double(x0) * sx), by0 = Int(Double(y0) * sy)
            let bx1 = min(sw, Int((Double(x1 + 1) * sx).rounded(.up))), by1 = min(sh, Int((Double(y1 + 1) * sy).rounded(.up)))
            let point = PixelPoint(x: min(sw - 1, Int((Double(deepest % w) + 0.5) * sx)),
                                   y: min(sh - 1, Int((Double(deepest / w) + 0.5) * sy)))
            found.append((sizes[id], DetectedSubject(
                box: PixelRect(x: bx0, y: by0, width: bx1 - bx0, height: by1 - by0),
                area: Double(sizes[id]) / Double(w * h), score: min(1, max(0, sum / Double(sizes[id]))), point: point)))
        }
        return found.sorted { $0.size > $1.size }.map(\.subject)
    }
}

extension StickerExtractor {
    /// The separate subjects of `image`, by the same stages as ``extract(from:options:subjectMap:on:)``
    /// (`options.subject` is ignored), with what it takes to cut each out (``PhotoSubjects/sticker(of:from:)``).
    ///
    /// A salient-object map shows the most salient subject and suppresses the others. So the subjects are found in
    /// rounds: each round after the first cuts the largest strip of the photo beside the subjects found so far
    /// (``freeArea(_:boxes:)``), where its own map finds the next ones; a round that finds nothing new, or no strip
    /// left, ends the search. Then each of the largest subjects (``refinedSubjects``) is cut again from its own part
    /// of the photo (its box grown by a tenth): in a photo of several subjects the first map is rarely sure of them
    /// all, and on its own part the map sees one large and alone (bench/README.md, issue #47). When what that cut finds
    /// reaches the part's edge, the subject was found only in part: its part is widened there and cut once more
    /// (``widened(_:for:in:)``). A point then selects a subject from its own cut.
    /// - Parameters:
    ///   - subjectMap: the learned map of a photo (each round's), as a stage of its own; nil for the classical cut.
    ///   - rounds: at most this many rounds of the search (at least 1).
    ///   - refines: whether the subjects found are cut again on their own.
    ///   - ownCutMap: the learned map of a subject's own part; nil for `subjectMap`'s.
    /// - Throws: `CancellationError`; what `subjectMap` throws.
    public static func subjects(in image: Image, options: StickerOptions = .init(),
                                subjectMap: (@Sendable (Image) async throws -> SubjectMap)? = nil, rounds: Int = 3,
                                refines: Bool = true,
                                ownCutMap: (@Sendable (Image) async throws -> SubjectMap)? = nil,
                                on stages: some StageRunner) async throws -> PhotoSubjects {
        var options = options
        options.subject = nil
        var found: [DetectedSubject] = [], foundIn: [Int] = [], made: [PhotoSubjects.Round] = []
        // Parts a later round found that did not stand out in its strip: they take no part in the search (its strips,
        // what counts as found), and become subjects only when their own cut is sure of them (below).
        var unsure: [DetectedSubject] = []
        var area = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        for round in 0..<max(1, rounds) {
            let cut = try await cutRound(of: area, in: image, options: options, subjectMap: subjectMap, on: stages)
            let parts = try await parts(of: cut, in: image, on: stages)
            // Not new: a part over a subject found before. A strip's map scales what is most salient in it to the top,
            // so a later round's part must also stand out there (a strip of background scores low).
            let new = parts.filter { part in !found.contains { sameSubject($0, part) } }
            let sure = new.filter { round == 0 || $0.score >= laterRoundScore }
            if refines {
                unsure += new.filter { part in round > 0 && part.score < laterRoundScore && !unsure.contains { sameSubject($0, part) } }
            }
            // The first round is kept even when it finds nothing: a prompt's sticker is cut from it.
            if sure.isEmpty && round > 0 { break }
            made.append(cut)
            if sure.isEmpty { break }
            found += sure
            foundIn += Array(repeating: round, count: sure.count)
            guard let next = freeArea(image, boxes: found.map(\.box)) else { break }
            area = next
        }
        if refines {
            // The largest subjects cut again, each from its own part of the photo, where the map sees it large and
            // alone: the subject is then that cut's part under its first box. A subject's new cut may have grown
            // over another's: the one found first stays. The unsure parts come after the subjects found: a subject
            // at a strip's edge, where the strip's map is unsure, may be sure on its own part.
            let searched = found.count
            let largest = found.indices.sorted { found[$0].area > found[$1].area }
            found += unsure
            foundIn += Array(repeating: -1, count: unsure.count)
            let candidates = (searched..<found.count).sorted { found[$0].area > found[$1].area }
            for i in (largest + candidates).prefix(refinedSubjects) {
                guard var part = ownCutArea(for: found[i].box, in: image) else { continue }
                var best: (cut: PhotoSubjects.Round, own: DetectedSubject)?
                for attempt in 0..<ownCutAttempts {
                    let cut = try await cutRound(of: part, in: image, options: options, subjectMap: ownCutMap ?? subjectMap,
                                                 on: stages, ownCut: true)
                    let under = try await parts(of: cut, in: image, on: stages).filter { found[i].box.contains($0.point) }
                    guard let own = under.max(by: { $0.area < $1.area }) else { break }
                    best = (cut, own)
                    // A subject that runs on past its own part's edge was found only in part: its part widened.
                    guard attempt + 1 < ownCutAttempts,
                          let wider = Self.widened(part, for: own.box, in: image) else { break }
                    part = wider
                }
                guard let (cut, own) = best else { continue }
                // An unsure part its own cut is not sure of either is background: its cut is not kept.
                if i >= searched && own.score < laterRoundScore { continue }
                made.append(cut)
                found[i] = own
                foundIn[i] = made.count - 1
            }
            var kept: [Int] = []
            for i in found.indices where foundIn[i] >= 0 && !kept.contains(where: { sameSubject(found[$0], found[i]) }) {
                kept.append(i)
            }
            (found, foundIn) = (kept.map { found[$0] }, kept.map { foundIn[$0] })
        }
        let order = found.indices.sorted { found[$0].area > found[$1].area }
        return PhotoSubjects(subjects: order.map { found[$0] }, foundIn: order.map { foundIn[$0] },
                             rounds: made)
    }

    /// IoU of two boxes.
    static func boxOverlap(_ a: PixelRect, _ b: PixelRect) -> Double {
        let ix = max(0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
        let iy = max(0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
        let inter = Double(ix * iy), union = Double(a.width * a.height + b.width * b.height) - inter
        return union > 0 ? inter / union : 0
    }

    /// The sticker of the subject `options.subject` selects: ``subjectCut(from:options:photoMap:ownCutMap:on:)``
    /// made a sticker.
    /// - Throws: `CancellationError`; what the maps throw.
    public static func extract(from image: Image, options: StickerOptions,
                               photoMap: (@Sendable () async throws -> SubjectMap)?,
                               ownCutMap: (@Sendable (Image) async throws -> SubjectMap)?,
                               on stages: some StageRunner) async throws -> Sticker {
        let cut = try await subjectCut(from: image, options: options, photoMap: photoMap, ownCutMap: ownCutMap,
                                       on: stages)
        return try await stages.stage { loop in try makeSticker(image, cut: cut, options: options, on: loop) }
    }

    /// The subject `options.subject` selects by its points: cut from the whole photo (`photoMap`'s map), then, when
    /// that cut's box is under ``refinedBoxShare`` of the photo, again from its own part of the photo (the box grown
    /// by a tenth, `ownCutMap`'s map of it) as `subjects(in:options:subjectMap:rounds:refines:on:)` cuts each subject
    /// it finds; the first cut when the own cut has no part under the first point. Other prompts (and none) are cut
    /// once.
    /// - Throws: `CancellationError`; what the maps throw.
    public static func subjectCut(from image: Image, options: StickerOptions,
                                  photoMap: (@Sendable () async throws -> SubjectMap)?,
                                  ownCutMap: (@Sendable (Image) async throws -> SubjectMap)?,
                                  on stages: some StageRunner) async throws -> SubjectCut {
        let whole = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        guard let prompt = options.subject, case .points(let include, _) = prompt, let first = include.first else {
            return try await subjectCut(from: image, options: options, subjectMap: photoMap, on: stages)
        }
        var unprompted = options
        unprompted.subject = nil
        let photo = try await cutRound(of: whole, in: image, options: unprompted,
                                       subjectMap: photoMap.map { f in { @Sendable _ in try await f() } }, on: stages)
        let once = PhotoSubjects(subjects: [], foundIn: [], rounds: [photo])
        // The cut without the points is their floor where the points lie on it and the point's cut lost the subject
        // rather than chose it: where that cut is one part (the parts under the points hold ``pointsFloorShare`` of
        // it) and the point's cut keeps under ``pointsFloorArea`` of its area, or where the point's cut lies largely
        // outside it (under ``pointsFloorWithin`` of it inside). A point still picks a subject the unprompted cut
        // missed, one of two it took together (that one lies within it), and refines the edges of the one it took
        // (bench/README.md, "A point never makes the cut worse"). Only a sample of the unprompted mask is held
        // meanwhile.
        let floor = try await stages.stage { loop -> (sample: SampledMask, onePart: Bool)? in
            let plain = try once.subjectCut(from: image, round: 0, on: loop)
            guard Self.points(of: prompt, lieOn: plain.mask) else { return nil }
            let sample = SampledMask(plain.mask)
            return (sample, sample.shareOfParts(under: include) >= Self.pointsFloorShare)
        }
        let pointed = try await pointCut(image, prompt: prompt, first: first, once: once, unprompted: unprompted,
                                         ownCutMap: ownCutMap, on: stages)
        guard let floor, Self.pointLostTheSubject(SampledMask(pointed.mask), floor: floor.sample,
                                                  floorIsOnePart: floor.onePart) else {
            return pointed
        }
        return try await stages.stage { loop in try once.subjectCut(from: image, round: 0, on: loop) }
    }

    /// The subject under `first`: from the whole photo's cut (`once`, its one round), then from its own part's cut
    /// when its box is under ``refinedBoxShare`` of the photo.
    private static func pointCut(_ image: Image, prompt: SubjectPrompt, first: PixelPoint, once: PhotoSubjects,
                                 unprompted: StickerOptions, ownCutMap: (@Sendable (Image) async throws -> SubjectMap)?,
                                 on stages: some StageRunner) async throws -> SubjectCut {
        let cut = try await stages.stage { loop in try once.subjectCut(from: image, subject: prompt, round: 0, on: loop) }
        guard let part = ownCutArea(for: cut.boundingBox, in: image), part.contains(first) else { return cut }
        // The first cut is not held through the own cut (a large photo's mask on top of its buffers): in the rare
        // case the own cut has nothing under the point, it is made again.
        let own = try await cutRound(of: part, in: image, options: unprompted, subjectMap: ownCutMap, on: stages,
                                     ownCut: true)
        let both = PhotoSubjects(subjects: [], foundIn: [], rounds: [once.rounds[0], own])
        return try await stages.stage { loop in
            try both.subjectCut(from: image, subject: prompt, round: own.hasPart(at: first, on: loop) ? 1 : 0, on: loop)
        }
    }

    /// The share of the unprompted cut the parts under the points must hold for it to be one subject (the floor).
    static let pointsFloorShare = 0.8
    /// A point's cut keeping under this share of the unprompted cut's area has lost the subject rather than chosen
    /// it (chosen on the tuning half of sticker-dev: bench/README.md).
    static let pointsFloorArea = 0.65

    /// A point's cut keeping at least this share of itself inside the unprompted cut its points lie on chose a part
    /// of that cut; under it, it lost the subject for something else (chosen on the tuning half of sticker-dev, where
    /// every share from 0.6 to 0.95 decides alike: bench/README.md).
    static let pointsFloorWithin = 0.7

    /// Whether the point's cut `pointed` lost the subject that the unprompted cut `floor` (which the points lie on)
    /// holds: it keeps under ``pointsFloorArea`` of a `floor` of one part, or lies largely outside `floor`.
    static func pointLostTheSubject(_ pointed: SampledMask, floor: SampledMask, floorIsOnePart: Bool) -> Bool {
        (floorIsOnePart && Double(pointed.count) < pointsFloorArea * Double(floor.count))
            || pointed.share(within: floor) < pointsFloorWithin
    }

    /// Whether every point of `prompt` to include lies on `mask`'s subject (>= 128) and none to exclude does.
    static func points(of prompt: SubjectPrompt, lieOn mask: Mask) -> Bool {
        guard case .points(let include, let exclude) = prompt, !include.isEmpty else { return false }
        func on(_ p: PixelPoint) -> Bool {
            p.x >= 0 && p.y >= 0 && p.x < mask.width && p.y < mask.height && mask.values[p.y * mask.width + p.x] >= 128
        }
        return include.allSatisfy(on) && !exclude.contains(where: on)
    }

    /// Whether `part` is a subject found before as `old`: it lies over `old`'s box.
    static func sameSubject(_ old: DetectedSubject, _ part: DetectedSubject) -> Bool {
        old.box.contains(part.point) || boxOverlap(old.box, part.box) > 0.3
    }

    /// `area` of `image` cut as a photo of its own (its own subject map, when there is one). `ownCut`: the round is
    /// a found subject's own cut.
    static func cutRound(of area: PixelRect, in image: Image, options: StickerOptions,
                         subjectMap: (@Sendable (Image) async throws -> SubjectMap)?, on stages: some StageRunner,
                         ownCut: Bool = false) async throws -> PhotoSubjects.Round {
        let whole = area == PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        let photo = whole ? image : Compositing.crop(image, x: area.x, y: area.y, width: area.width, height: area.height)
        let map = subjectMap.map { f in { @Sendable () async throws -> SubjectMap in try await f(photo) } }
        let (plan, cuts, settled) = try await planAndCut(photo, options: options, subjectMap: map, on: stages)
        return PhotoSubjects.Round(area: area, plan: plan, cuts: cuts, options: settled, ownCut: ownCut)
    }

    /// The parts `round`'s cut found, in the pixels of `image` (the photo it cut a part of).
    static func parts(of round: PhotoSubjects.Round, in image: Image, on stages: some StageRunner)
        async throws -> [DetectedSubject] {
        let area = round.area
        return try await stages.stage { loop in
            try round.plan.subjects(cuts: round.cuts, sourceWidth: area.width, sourceHeight: area.height, on: loop)
        }.map { part in
            var moved = part
            moved.box.x += area.x; moved.box.y += area.y
            moved.point = PixelPoint(x: part.point.x + area.x, y: part.point.y + area.y)
            moved.area = part.area * Double(area.width * area.height) / Double(image.width * image.height)
            return moved
        }
    }

    /// The part of `image` a subject with box `box` is cut again from: the box grown by a tenth; nil when the box covers
    /// ``refinedBoxShare`` of the photo or more (its own part is nearly the photo) or lies off it.
    static func ownCutArea(for box: PixelRect, in image: Image) -> PixelRect? {
        guard Double(box.width * box.height) < refinedBoxShare * Double(image.width * image.height) else { return nil }
        return box.grownByATenth(within: image.width, height: image.height)
    }

    /// How many times a subject's own part may be cut: once more, widened, when the subject reaches its edge.
    static let ownCutAttempts = 2

    /// `part` widened on each side where `box` (a subject cut from it) reaches its edge (within a fiftieth of its
    /// size, 2 px at least) and the photo goes on: by half the box's size that way; nil when the box reaches no such
    /// edge.
    static func widened(_ part: PixelRect, for box: PixelRect, in image: Image) -> PixelRect? {
        let tx = max(2, part.width / 50), ty = max(2, part.height / 50)
        var x0 = part.x, y0 = part.y, x1 = part.x + part.width, y1 = part.y + part.height
        let gx = box.width / 2, gy = box.height / 2
        if part.x > 0 && box.x <= part.x + tx { x0 = max(0, part.x - gx) }
        if part.y > 0 && box.y <= part.y + ty { y0 = max(0, part.y - gy) }
        if x1 < image.width && box.x + box.width >= x1 - tx { x1 = min(image.width, x1 + gx) }
        if y1 < image.height && box.y + box.height >= y1 - ty { y1 = min(image.height, y1 + gy) }
        let wider = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        return wider == part ? nil : wider
    }

    /// At most this many subjects, the largest, are cut again on their own.
    static let refinedSubjects = 4

    /// A subject whose box covers this share of the photo or more is not cut again: its own part is nearly the photo.
    static let refinedBoxShare = 0.8

    /// The least score of a subject found after the first round, in its strip or, when it is cut again on its own,
    /// in that own cut.
    static let laterRoundScore = 0.3

    /// The largest strip of the photo beside the union of `boxes` (left, right, above or below it), if one is at
    /// least a fifth of the photo's width (or height) and 32 px: where the next round looks.
    static func freeArea(_ image: Image, boxes: [PixelRect]) -> PixelRect? {
        guard let first = boxes.first else { return nil }
        var x0 = first.x, y0 = first.y, x1 = first.x + first.width, y1 = first.y + first.height
        for b in boxes { x0 = min(x0, b.x); y0 = min(y0, b.y); x1 = max(x1, b.x + b.width); y1 = max(y1, b.y + b.height) }
        let w = image.width, h = image.height
        let strips = [PixelRect(x: 0, y: 0, width: x0, height: h), PixelRect(x: x1, y: 0, width: w - x1, height: h),
                      PixelRect(x: 0, y: 0, width: w, height: y0), PixelRect(x: 0, y: y1, width: w, height: h - y1)]
        return strips.filter { s in
            min(s.width, s.height) >= 32 && (s.height == h ? 5 * s.width >= w : 5 * s.height >= h)
        }.max { $0.width * $0.height < $1.width * $1.height }
    }
}
