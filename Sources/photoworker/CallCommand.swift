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
            abstract: "Run one request through an in-process worker and print the result as JSON.",
            discussion: """
                Streamed events are printed as JSON lines, then the result. On a JSON-RPC error the error
                object goes to stderr and the exit status is 1. Ctrl-C cancels the request cleanly.
                Example: photoworker call image.info '{"source":{"path":"photo.jpg"}}'
                """)

        @Argument(help: "The method, e.g. image.thumbnail.")
        var method: String

        @Argument(help: "The params as a JSON object (default {}).")
        var params: String = "{}"

        @OptionGroup var flags: WorkerFlags

        func run() async throws {
            let parsed: JSONValue
            do {
                parsed = try JSONParser.parse(params)
            } catch {
                throw ValidationError("params are not valid JSON: \(error.reason) at byte \(error.offset)")
            }
            guard case .object = parsed else { throw ValidationError("params must be a JSON object") }
            let worker = try InProcessWorker.start(flags: flags)
            // Ctrl-C: cancel the request; the worker answers -32800 and we exit 130.
            signal(SIGINT, SIG_IGN)
            let sigint = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            sigint.setEventHandler { worker.cancel(worker.lastID) }
            sigint.resume()
            do {
                let result = try await worker.call(method, parsed) { event in
                    Terminal.line(event.jsonString)
                }
                Terminal.line(result.jsonString)
                await worker.close()
            } catch let error as RPCError {
                Terminal.error(error.json.jsonString)
                await worker.close()
                throw ExitCode(error.code == .requestCancelled ? 130 : 1)
            }
        }
    }
}
