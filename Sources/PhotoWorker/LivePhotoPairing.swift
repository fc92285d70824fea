import Foundation
import JSONRPC

/// A batch's `sources` (``BatchSource``) as the items it makes, each Live Photo's still with its clip: the clip given
/// as `motion`, or else, for a still path (``LivePhoto/isStill(_:)``), the clip of its name among the sources or in
/// its folder (``LivePhoto/clipExtensions``, any case). A clip listed among the sources that a still took makes no
/// item of its own: the still's item is the Live Photo's. Every other source is an item as before.
///
/// A folder's files are listed once (as the read policy allows) however many stills it holds, and each clip goes to
/// one still (the first in `sources` order), so `IMG_1.HEIC` and `IMG_1.JPG` beside one `IMG_1.MOV` do not both
/// take it.
struct LivePhotoPairing: Sendable {
    /// One item of the batch.
    struct Item: Sendable {
        /// Its source's index in `sources`: the item's index, and where its `subjects` entry is.
        var index: Int
        var source: ImageSource
        /// The Live Photo's clip, given or found.
        var motion: ImageSource?
    }

    /// A Live Photo as the batch's result reports it.
    struct Pair: Encodable, Sendable {
        /// The still's index in `sources` (its item's).
        var index: Int
        /// The still, as given.
        var source: String
        /// The clip: as given, or the path found beside the still.
        var motion: String
        /// The clip's own index in `sources`, when it was listed there too (it makes no item of its own).
        var motionIndex: Int?
        /// True when the clip was found by its name, false when given as `motion`.
        var found: Bool
    }

    var items: [Item]
    var pairs: [Pair]

    /// The sources' indices that make no item (clips taken by a still).
    var absorbed: Set<Int> { Set(pairs.compactMap(\.motionIndex)) }

    /// Pairs `sources`, looking in the stills' folders through `access`. Never fails: a folder that cannot be
    /// listed, or a clip the session may not read, leaves the still a still.
    static func pair(_ sources: [BatchSource], access: FileAccess) -> LivePhotoPairing {
        // The sources given by path, by the path as the kernel would resolve it lexically.
        func normal(_ p: String) -> String { (FileAccess.absolute(p) as NSString).standardizingPath }
        var listed: [String: Int] = [:]
        for (i, s) in sources.enumerated() {
            if case .path(let p) = s.source, listed[normal(p)] == nil { listed[normal(p)] = i }
        }
        var motions = sources.map(\.motion)
        var pairs: [Pair] = []
        var taken: Set<String> = []  // clips (normalised) already some still's
        var absorbed: Set<Int> = []

        // Clips given as `motion` first: a given pairing wins over one found by name.
        for (i, s) in sources.enumerated() {
            guard let motion = s.motion else { continue }
            var at: Int?
            if case .path(let m) = motion {
                taken.insert(normal(m))
                if let j = listed[normal(m)], j != i, sources[j].motion == nil {
                    at = j
                    absorbed.insert(j)
                }
            }
            pairs.append(Pair(index: i, source: s.source.description, motion: motion.description, motionIndex: at,
                              found: false))
        }

        // Then each still path without one: its folder's files by base name, listed once per folder.
        var folders: [String: [String: [String]]] = [:]
        func names(in folder: String) -> [String: [String]] {
            if let known = folders[folder] { return known }
            let files = (try? access.fileNames(in: folder.isEmpty ? "." : folder)) ?? []
            var byStem: [String: [String]] = [:]
            for name in files where LivePhoto.isClip(name) {
                byStem[(name as NSString).deletingPathExtension, default: []].append(name)
            }
            folders[folder] = byStem
            return byStem
        }
        for (i, s) in sources.enumerated() {
            guard s.motion == nil, !absorbed.contains(i), case .path(let p) = s.source, LivePhoto.isStill(p) else { continue }
            let (folder, stem) = LivePhoto.key(p)
            let candidates = (names(in: folder)[stem] ?? []).sorted { a, b in
                let ea = LivePhoto.clipExtensions.firstIndex(of: (a as NSString).pathExtension.lowercased()) ?? 9
                let eb = LivePhoto.clipExtensions.firstIndex(of: (b as NSString).pathExtension.lowercased()) ?? 9
                return ea != eb ? ea < eb : a < b
            }
            for name in candidates {
                let clip = LivePhoto.join(folder, name)
                let key = normal(clip)
                guard !taken.contains(key), LivePhoto.readable(clip, access: access) else { continue }
                taken.insert(key)
                // A clip listed among the sources keeps the path it was given there.
                let j = listed[key].flatMap { j in j != i && sources[j].motion == nil && !absorbed.contains(j) ? j : nil }
                var given = clip
                if let j, case .path(let q) = sources[j].source { given = q }
                if let j { absorbed.insert(j) }
                motions[i] = .path(given)
                pairs.append(Pair(index: i, source: p, motion: given, motionIndex: j, found: true))
                break
            }
        }
        let items = sources.indices.filter { !absorbed.contains($0) }.map {
            Item(index: $0, source: sources[$0].source, motion: motions[$0])
        }
        return LivePhotoPairing(items: items, pairs: pairs.sorted { $0.index < $1.index })
    }
}

extension LivePhotoPairing {
    /// `LivePhotoPair`, each of `photos.process`'s and `pack.export`'s `paired`.
    static let contractSchemas: [ContractSchema] = [
        ContractSchema("LivePhotoPair", #"""
            {
              "type": "object",
              "description": "A Live Photo of a batch: the still and its clip, given as `motion` or found by name (IMG_1234.MOV beside IMG_1234.HEIC). Its item is the still's; a clip also listed among the sources makes no item of its own.",
              "properties": {
                "index": {"type": "integer", "minimum": 0, "description": "The still's index in sources (its item's)."},
                "source": {"type": "string", "description": "The still, as given."},
                "motion": {"type": "string", "description": "The clip: as given, or the path found beside the still."},
                "motionIndex": {"type": "integer", "minimum": 0, "description": "The clip's own index in sources, when it was listed there too."},
                "found": {"type": "boolean", "description": "True when the clip was found by its name, false when given as motion."}
              },
              "required": ["index", "source", "motion", "found"],
              "additionalProperties": false
            }
            """#),
    ]
}
