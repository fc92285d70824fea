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
