import ArgumentParser
import Foundation
import JSONRPC
import JSONRPCTransport
import PhotoWorker

import Glibc

extension PhotoWorkerCommand {
    /// `photoworker call METHOD '{"json":"params"}'`: one request for shell scripts.
    struct Call: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run one request through an in-process worker and print its result as JSON.",
            discussion: """
                stdout carries the final result alone, one JSON document, so `| jq` works on any method.
                Streamed events (progress, each item of a batch) go to stderr: a progress bar on a terminal,
                plain lines otherwise; --events writes them as JSON lines instead, --quiet hides them.
                On a JSON-RPC error the error object goes to stderr and the exit status is 1; Ctrl-C cancels
                the request cleanly (status 130). `photoworker call rpc.discover` describes every method.
                Example: photoworker call image.info '{"source":{"path":"photo.jpg"}}'
                """)

        @Argument(help: "The method, e.g. image.thumbnail.")
        var method: String

        @Argument(help: "The params as a JSON object (default {}).")
        var params: String = "{}"

        @Flag(name: [.short, .long], help: "Show no progress or item lines on stderr.")
        var quiet = false

        @Flag(help: "Write each streamed event ($/progress params) to stderr as a JSON line.")
        var events = false

        @OptionGroup var flags: WorkerFlags

        func validate() throws {
            guard !(quiet && events) else { throw ValidationError("--quiet and --events exclude each other") }
        }

        func run() async throws {
            let parsed: JSONValue
            do {
                parsed = try JSONParser.parse(params)
            } catch {
                throw ValidationError("params are not valid JSON: \(error.reason) at byte \(error.offset)")
            }
            guard case .object = parsed else { throw ValidationError("params must be a JSON object") }
            Terminal.prepare()
            let worker = try InProcessWorker.start(flags: flags)
            // Ctrl-C: cancel the request; the worker answers -32800 and we exit 130.
            signal(SIGINT, SIG_IGN)
            let sigint = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            sigint.setEventHandler { worker.cancel(worker.lastID) }
            sigint.resume()
            var display = ProgressDisplay(method: method, quiet: quiet, events: events)
            do {
                let result = try await worker.call(method, parsed) { display.show($0) }
                display.finish()
                await worker.close()
                // The job is done and its files are in place: a reader that went away loses only the printout.
                guard Terminal.line(result.jsonString) else { Terminal.exitForClosedOutput() }
            } catch let error as RPCError {
                display.finish()
                Terminal.error(error.json.jsonString)
                await worker.close()
                throw ExitCode(error.code == .requestCancelled ? 130 : 1)
            }
        }
    }
}
