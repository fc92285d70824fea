import ArgumentParser
import PhotoWorker

extension PhotoWorkerCommand {
    /// `photoworker contract`: the OpenRPC document the code states, as protocol/openrpc.json holds it.
    /// `scripts/gen-openrpc.sh` writes it there; a test fails when the committed file differs.
    struct Contract: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the OpenRPC document of every method (what protocol/openrpc.json holds).",
            discussion: "The same document `rpc.discover` answers, pretty-printed. scripts/gen-openrpc.sh writes it to protocol/openrpc.json.")

        func run() throws {
            Terminal.prepare()
            // The text ends in a newline already; line() adds one more only if it is missing.
            let text = OpenRPCDocument.text
            if !Terminal.line(String(text.dropLast())) { Terminal.exitForClosedOutput() }
        }
    }
}
