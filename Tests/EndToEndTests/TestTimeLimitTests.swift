import Foundation
import PhotoWorkerTestSupport
import Testing

/// Every test runs under a time limit (a hung test fails, naming itself, instead of stopping CI at its own limit): each
/// top-level type that holds tests is a `@Suite` with `.timeLimit`, which its tests and nested suites inherit.
@Suite(.timeLimit(.minutes(10)))
struct TestTimeLimitTests {
    /// Top-level types holding `@Test`s without a `@Suite(... .timeLimit ...)` attribute, as "file:line".
    static func unlimited(in text: String, file: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let declaration = #/^(public |internal |private |fileprivate |package )?(final )?(struct|class|enum|actor) \w+/#
        let topLevel = #/^(public |internal |private |fileprivate |package )?(final )?(struct|class|enum|actor|extension) /#
        var found: [String] = []
        for (i, line) in lines.enumerated() {
            // A declaration at the start of a line, or after attributes on the same line (`@Suite struct X`).
            let inline = line.hasPrefix("@") && line.firstMatch(of: /\s(final\s)?(struct|class|enum|actor)\s\w+/) != nil
            guard line.firstMatch(of: declaration) != nil || inline else { continue }
            var attributes = inline ? [line] : []
            var j = i - 1
            while j >= 0, lines[j].hasPrefix("@") { attributes.append(lines[j]); j -= 1 }
            var k = i + 1, holdsTests = false
            while k < lines.count, lines[k].firstMatch(of: topLevel) == nil, !lines[k].hasPrefix("}") {
                if lines[k].contains("@Test") { holdsTests = true }
                k += 1
            }
            if holdsTests && !attributes.contains(where: { $0.contains("@Suite") && $0.contains(".timeLimit(") }) {
                found.append("\(file):\(i + 1)")
            }
        }
        return found
    }

    @Test("Every suite of tests has a time limit")
    func everySuiteHasATimeLimit() throws {
        let tests = Corpus.packageRoot.appendingPathComponent("Tests")
        let files = SwiftFiles.under(tests)
        var unlimited: [String] = []
        for file in files {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            unlimited += Self.unlimited(in: text, file: file)
        }
        #expect(files.count > 100, "test files read: \(files.count)")
        #expect(unlimited.isEmpty, "suites without a time limit: \(unlimited)")
    }

    @Test("The check finds a suite without a limit, and accepts one with it")
    func theCheckCanFail() {
        let without = "import Testing\n\n/// doc\n@MainActor\nstruct A {\n    @Test func x() {}\n}\n@Suite struct B {\n    @Test func y() {}\n}\n"
        #expect(Self.unlimited(in: without, file: "f") == ["f:5", "f:8"], "\(Self.unlimited(in: without, file: "f"))")
        let with = "@Suite(\"named\", .timeLimit(.minutes(10)))\nstruct A {\n    @Test func x() {}\n}\n@Suite(.serialized, .timeLimit(.minutes(10))) struct B {\n    @Test func y() {}\n}\nstruct Helper {\n    func z() {}\n}\n"
        #expect(Self.unlimited(in: with, file: "f").isEmpty, "\(Self.unlimited(in: with, file: "f"))")
    }
}
