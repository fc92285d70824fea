import Foundation
import Imaging

/// One messenger's rules for sticker files: the one table (``MessengerTarget/limits``) that the fitting code
/// (``MessengerTarget``), the contract's descriptions, protocol/README.md's "Messenger limits" table
/// (``markdownTable``, compared by a test) and the tests read.
public struct MessengerLimits: Sendable, Equatable {
    /// How a sticker sits on its canvas.
    public enum Canvas: Sendable, Equatable {
        /// Scaled to `side` on the long side; the other side follows (at most `side`; even for video).
        case longSide(Int)
        /// Fitted inside `side - 2 * margin` and centred on a transparent `side` x `side` square.
        case square(Int, margin: Int)
    }

    /// A file's format and largest size.
    public struct File: Sendable, Equatable {
        public var format: ImageFormat
        public var maxBytes: Int
    }

    /// What an animated sticker may be besides its file.
    public struct Motion: Sendable, Equatable {
        /// The longest animation, seconds.
        public var maxDuration: Double
        /// The highest frame rate (Telegram's 30; the others set none, and 30 is what the worker writes at most).
        public var maxFrameRate: Double
        /// The shortest frame, seconds; nil when the messenger sets none.
        public var minFrameDuration: Double?
    }

    /// WhatsApp's tray icon: a square `side` x `side` file.
    public struct Tray: Sendable, Equatable {
        public var side: Int
        public var file: File
    }

    /// The messenger's name, for the docs.
    public var name: String
    /// The canvas of every sticker, still or animated (every frame is laid out as a still).
    public var canvas: Canvas
    public var still: File
    public var animated: File
    public var motion: Motion
    public var tray: Tray?
}

extension MessengerTarget {
    /// The table: one row per messenger.
    public var limits: MessengerLimits {
        switch self {
        case .telegram:
            MessengerLimits(name: "Telegram", canvas: .longSide(512),
                            still: .init(format: .webp, maxBytes: 512 * 1024),
                            animated: .init(format: .webm, maxBytes: 256 * 1024),
                            motion: .init(maxDuration: 3, maxFrameRate: 30, minFrameDuration: nil))
        case .whatsapp:
            MessengerLimits(name: "WhatsApp", canvas: .square(512, margin: 16),
                            still: .init(format: .webp, maxBytes: 100 * 1024),
                            animated: .init(format: .webp, maxBytes: 500 * 1024),
                            motion: .init(maxDuration: 10, maxFrameRate: 30, minFrameDuration: 0.008),
                            tray: .init(side: 96, file: .init(format: .png, maxBytes: 50 * 1024)))
        case .signal:
            // 300 KB is Signal's documented limit for a static sticker, and its animated one.
            MessengerLimits(name: "Signal", canvas: .square(512, margin: 0),
                            still: .init(format: .webp, maxBytes: 300 * 1024),
                            animated: .init(format: .apng, maxBytes: 300 * 1024),
                            motion: .init(maxDuration: 3, maxFrameRate: 30, minFrameDuration: nil))
        }
    }
}

extension MessengerLimits {
    /// protocol/README.md's table of the limits, between its `messenger-limits` markers; a test keeps the two equal.
    public static var markdownTable: String {
        var lines = [
            "| `target` | Canvas | Still sticker | Animated sticker | Longest | Frame rate | Shortest frame | Tray icon |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for target in MessengerTarget.allCases {
            let l = target.limits
            let cells = [
                "`\(target.rawValue)`", l.canvasWords, l.still.words(still: true), l.animated.words(still: false),
                "\(Self.number(l.motion.maxDuration)) s", "\(Self.number(l.motion.maxFrameRate)) fps",
                l.motion.minFrameDuration.map { "\(Self.number($0 * 1000)) ms" } ?? "-",
                l.tray.map { "\($0.side)x\($0.side) \($0.file.words(still: true))" } ?? "-",
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// The still stickers' rules of every messenger, for the contract: "telegram: 512 px on the long side, WebP of at
    /// most 512 KB; ...".
    public static var stillSentence: String {
        MessengerTarget.allCases.map { target in
            let l = target.limits
            let tray = l.tray.map { ", plus tray.png (\($0.side)x\($0.side) \($0.file.words(still: true)))" } ?? ""
            return "\(target.rawValue): \(l.canvasWords), \(l.still.words(still: true))\(tray)"
        }.joined(separator: "; ")
    }

    /// The animated stickers' rules of every messenger, for the contract.
    public static var animatedSentence: String {
        MessengerTarget.allCases.map { target in
            let l = target.limits
            let shortest = l.motion.minFrameDuration.map { ", frames of at least \(Self.number($0 * 1000)) ms" } ?? ""
            return "\(target.rawValue): \(l.canvasWords), \(l.animated.words(still: false)), at most "
                + "\(Self.number(l.motion.maxDuration)) s and \(Self.number(l.motion.maxFrameRate)) fps\(shortest)"
        }.joined(separator: "; ")
    }

    var canvasWords: String {
        switch canvas {
        case .longSide(let side): "\(side) px on the long side"
        case .square(let side, let margin) where margin > 0: "\(side)x\(side) inside a \(margin) px margin"
        case .square(let side, _): "\(side)x\(side)"
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

extension MessengerLimits.File {
    /// "WebP of at most 512 KB", "animated WebP of at most 500 KB".
    func words(still: Bool) -> String {
        "\(still ? format.displayName : format.facts.animationName) of at most \(maxBytes / 1024) KB"
    }
}
