import Foundation
import PhotoWorkerTestSupport
import Testing

/// docs/contributors/Modules.md's table says which module each target may import; this holds the sources to it, so
/// the map stays true: an `import` its target's row does not list fails here, naming the file.
@Suite(.timeLimit(.minutes(10)))
struct ModuleImportsTests {
    /// The system's modules, which every target may use.
    static let system: Set<String> = ["Foundation", "FoundationEssentials", "Glibc", "Musl", "Dispatch", "Synchronization",
                                      "_Concurrency"]

    /// The table's rows: target -> the modules it may import.
    static func allowed() throws -> [String: Set<String>] {
        let text = try String(contentsOf: Corpus.packageRoot.appendingPathComponent("docs/contributors/Modules.md"),
                              encoding: .utf8)
        var rows: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 5 else { continue }
            let target = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let imports = cells[3] == "(nothing)" ? [] : cells[3].split(separator: ",").map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: "` ").union(.whitespaces))
            }
            rows[target] = Set(imports)
        }
        return rows
    }

    /// Every Swift file's imported modules (`import X`, `@testable import X`, `import struct X.Y`).
    static func imports(in file: URL) throws -> Set<String> {
        var found = Set<String>()
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            var words = line.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") || ["public", "internal", "package", "private"].contains(first) {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { continue }
            let name = words.count >= 3 && ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"].contains(words[1])
                ? words[2] : words[1]
            found.insert(String(name.split(separator: ".")[0]))
        }
        return found
    }

    @Test("Every target's imports are the ones Modules.md's table allows it")
    func importsFollowTheMap() throws {
        let rows = try Self.allowed()
        #expect(rows.count >= 8, "rows read from Modules.md: \(rows.keys.sorted())")
        let sources = Corpus.packageRoot.appendingPathComponent("Sources")
        let targets = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
        var checked = 0
        for target in targets {
            let folder = sources.appendingPathComponent(target)
            let files = SwiftFiles.under(folder)
            guard !files.isEmpty else { continue }  // a C target: its row is the C targets'
            guard let may = rows[target] else {
                Issue.record("Sources/\(target) has Swift files but no row in Modules.md's table")
                continue
            }
            for file in files {
                let extra = try Self.imports(in: folder.appendingPathComponent(file)).subtracting(may).subtracting(Self.system)
                    .subtracting([target])
                #expect(extra.isEmpty, "Sources/\(target)/\(file) imports \(extra.sorted()), which Modules.md does not allow \(target)")
                checked += 1
            }
        }
        #expect(checked > 100, "Swift files checked: \(checked)")
    }

    @Test("The check sees imports in every form Swift allows")
    func readsEveryFormOfImport() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imports-\(UUID().uuidString).swift")
        try """
        import Compute
        @testable import Imaging
        public import JSONRPC
        import struct Inference.Network
        // import NotThis
        let x = 1
        """.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let found = try Self.imports(in: file)
        #expect(found == ["Compute", "Imaging", "JSONRPC", "Inference"], "\(found.sorted())")
    }
}
