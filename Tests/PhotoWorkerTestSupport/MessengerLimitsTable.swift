import Foundation

/// The messenger limits as protocol/README.md publishes them (its "Messenger limits" table), for end-to-end tests,
/// which see the worker as a client does. PhotoWorkerTests' MessengerLimitsTests keeps that table equal to the
/// worker's own (`MessengerLimits`), so these are the worker's numbers, stated once.
package struct MessengerLimitsTable: Sendable {
    package struct Row: Sendable {
        package var stillMaxBytes: Int
        package var animatedMaxBytes: Int
        package var maxSeconds: Double
        package var traySide: Int?
        package var trayMaxBytes: Int?
    }

    package static let text: String = {
        let readme = Corpus.packageRoot.appendingPathComponent("protocol/README.md")
        let all = (try? String(contentsOf: readme, encoding: .utf8)) ?? ""
        let start = all.range(of: "<!-- messenger-limits: generated from MessengerLimits.markdownTable -->\n")
        let end = all.range(of: "\n<!-- /messenger-limits -->")
        guard let start, let end, start.upperBound <= end.lowerBound else { return "" }
        return String(all[start.upperBound..<end.lowerBound])
    }()

    /// Rows by `target` name; a missing table or cell stops the test that asked.
    package static func row(_ target: String) -> Row {
        for line in text.split(separator: "\n") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 8, cells[0] == "`\(target)`" else { continue }
            func kb(_ cell: String) -> Int? {
                guard let r = cell.range(of: #"(\d+) KB"#, options: .regularExpression) else { return nil }
                return Int(cell[r].dropLast(3))! * 1024
            }
            let tray = cells[7].split(separator: " ").first.flatMap { $0.split(separator: "x").first }.flatMap { Int($0) }
            return Row(stillMaxBytes: kb(cells[2])!, animatedMaxBytes: kb(cells[3])!,
                       maxSeconds: Double(cells[4].dropLast(2))!, traySide: tray, trayMaxBytes: kb(cells[7]))
        }
        preconditionFailure("protocol/README.md's messenger limits table has no row for \(target):\n\(text)")
    }
}
