import Foundation
@testable import Imaging

/// Locates test inputs: the project's corpus (corpus/ at the package root) and this target's fixtures.
enum CodecCorpus {
    /// Package root, found from this file's path (Tests/ImagingTests/<file>).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let root = packageRoot.appendingPathComponent("corpus").standardizedFileURL
    static let fixtures = packageRoot.appendingPathComponent("Tests/ImagingTests/Fixtures")

    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relative)))
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    /// File names in a corpus folder, sorted; empty when the folder is missing.
    static func files(in folder: String, suffix: String = "") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url(folder).path)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted()
    }
}

/// FNV-1a 64 of the RGBA bytes: the reference fixtures store these instead of pixels.
func fnv1a64(_ bytes: [UInt8]) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    bytes.withUnsafeBufferPointer { p in
        for b in p {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
    }
    let s = String(h, radix: 16)
    return String(repeating: "0", count: 16 - s.count) + s
}

/// Deterministic byte mutations of a valid file, one per round: flipped bytes, a truncation or a splice of its own
/// bytes, in turn. Decoders must answer each with a value or an `ImagingError`, never a crash or a hang.
func mutations(of original: [UInt8], rounds: Int) -> [[UInt8]] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(original.count)
    func next() -> Int {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return Int(truncatingIfNeeded: state >> 1)
    }
    return (0..<rounds).map { round in
        var bytes = original
        switch round % 3 {
        case 0:
            for _ in 0..<(1 + next() % 8) { bytes[next() % bytes.count] = UInt8(truncatingIfNeeded: next()) }
        case 1:
            bytes = Array(bytes.prefix(2 + next() % (bytes.count - 2)))
        default:
            let at = next() % bytes.count, len = min(1 + next() % 64, bytes.count - at)
            let from = next() % (bytes.count - len)
            bytes.replaceSubrange(at..<(at + len), with: original[from..<(from + len)])
        }
        return bytes
    }
}

/// Decodes every mutation (and reads its header), counting what decoded and what was refused with an `ImagingError`.
func decodeMutations(of original: [UInt8], rounds: Int) throws -> (decoded: Int, rejected: Int) {
    var outcomes = (decoded: 0, rejected: 0)
    for bytes in mutations(of: original, rounds: rounds) {
        do {
            _ = try ImageCodec.decode(bytes, options: DecodeOptions(maxPixels: 4_000_000), on: .inTurn)
            outcomes.decoded += 1
        } catch is ImagingError {
            outcomes.rejected += 1
        }
        _ = try? ImageCodec.info(bytes)
    }
    return outcomes
}
