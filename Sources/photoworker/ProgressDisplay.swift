import JSONRPCTransport

/// How `photoworker call` shows a long job's `$/progress` events on stderr, so stdout carries the final
/// result alone (`photoworker call photos.process ... | jq .completed` reads one document).
///
/// On a terminal the progress is a bar redrawn in place, with each item's outcome printed above it; otherwise
/// one plain line per event, which logs and CI output keep readable. `--events` writes the events as JSON lines
/// instead, for scripts that want them; `--quiet` shows nothing.
struct ProgressDisplay {
    enum Style: Equatable {
        case quiet, bar, lines, json
    }

    let style: Style
    let method: String
    /// Whether a bar is on screen (drawn and not yet cleared), so item lines clear it first.
    private var barShown = false
    private var last: (done: Int, total: Int, message: String?)?

    init(method: String, quiet: Bool, events: Bool, terminal: Bool = Terminal.stderrIsTerminal) {
        self.method = method
        style = quiet ? .quiet : events ? .json : terminal ? .bar : .lines
    }

    /// Shows one event (the params of a `$/progress` notification).
    mutating func show(_ event: JSONValue) {
        switch style {
        case .quiet:
            return
        case .json:
            Terminal.error(event.jsonString)
        case .lines, .bar:
            switch event["kind"]?.stringValue {
            case "progress":
                let done = event["done"]?.intValue ?? 0, total = event["total"]?.intValue ?? 0
                let message = event["message"]?.stringValue
                last = (done, total, message)
                if style == .bar {
                    drawBar()
                } else {
                    Terminal.error("\(method): \(done)/\(total)" + (message.map { " \($0)" } ?? ""))
                }
            case "item":
                clearBar()
                Terminal.error("\(method): " + Self.describeItem(event))
                if style == .bar, last != nil { drawBar() }
            default:
                // Unknown kinds are ignored, as the protocol asks of clients.
                return
            }
        }
    }

    /// Removes the bar before the result or an error is printed.
    mutating func finish() {
        clearBar()
    }

    /// `item 3 done (photo.jpg)` or `item 4 failed: source not found or unreadable {"reason":...}`.
    static func describeItem(_ event: JSONValue) -> String {
        let index = event["index"]?.intValue.map(String.init) ?? "?"
        if let error = event["error"] {
            let message = error["message"]?.stringValue ?? "error"
            let data = error["data"].map { " " + $0.jsonString } ?? ""
            return "item \(index) failed: \(message)\(data)"
        }
        let source = event["result"]?["source"]?.stringValue.map { " (\($0))" } ?? ""
        return "item \(index) done\(source)"
    }

    private mutating func drawBar() {
        guard let last else { return }
        let width = 30
        let filled = last.total > 0 ? min(width, width * last.done / last.total) : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let message = last.message.map { "  \($0)" } ?? ""
        Terminal.errorRaw("\r\u{1B}[2K\(method) [\(bar)] \(last.done)/\(last.total)\(message)")
        barShown = true
    }

    private mutating func clearBar() {
        guard barShown else { return }
        Terminal.errorRaw("\r\u{1B}[2K")
        barShown = false
    }
}
