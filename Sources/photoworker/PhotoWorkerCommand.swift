import ArgumentParser
import Foundation
import JSONRPC
import JSONRPCTransport
import Logging
import PhotoWorker

import Glibc

/// The process's entry: synchronous, so its first line runs on the main thread before any other thread exists and
/// before `dispatchMain()` parks that thread (where an early SIGTERM would have its default action).
@main
enum PhotoWorkerMain {
    static func main() {
        // SIGTERM/SIGINT are kept from here until the server's signal service takes them (``EarlySignals``).
        EarlySignals.catchFromNow()
        let command: any ParsableCommand
        do {
            command = try PhotoWorkerCommand.parseAsRoot()
        } catch {
            PhotoWorkerCommand.exit(withError: error)
        }
        // Only `serve` has a signal service to take them over; every other command ends by them as usual.
        if !(command is PhotoWorkerCommand.Serve) { EarlySignals.release() }
        // Off the main actor, as an async main runs its command.
        Task.detached { [command] in
            do {
                var command = command
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            } catch {
                PhotoWorkerCommand.exit(withError: error)
            }
            exit(0)
        }
        dispatchMain()
    }
}

/// `photoworker`: serves JSON-RPC on stdio by default.
struct PhotoWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photoworker",
        abstract: "A photo-processing worker driven over stdio with JSON-RPC 2.0 (one message per line, or LSP's Content-Length headers).",
        discussion: """
            With no subcommand, serves requests on stdin and writes responses to stdout; logs go to stderr.
            `photoworker call rpc.discover` prints the OpenRPC description of every method and its params;
            \(ProtocolGuide.sentence)

            Flags of `photoworker [serve]` (`photoworker serve --help` explains each;
            `call` and `demo` take all but --framing):
              --framing auto|ndjson|content-length  --max-jobs N (default: cores)
              --max-queue N  --max-message-bytes N  --drain-timeout S  --max-pixels N
              --max-frames N  --max-duration S
              --cache-bytes N  --max-memory SIZE|PERCENT|off (default: 90%)
              --max-fetch-bytes N  --fetch-timeout S  --roots-timeout S
              --allow-dir DIR  --allow-read-dir DIR  --allow-write-dir DIR
              --urls any|public|none  --log-level LEVEL  --diagnostics
            """,
        version: Worker.version,
        subcommands: [Serve.self, Call.self, Demo.self, Contract.self],
        defaultSubcommand: Serve.self
    )
}

/// Options shared by every mode that runs a worker.
struct WorkerFlags: ParsableArguments {
    /// `--max-line-bytes` is the name from the days of one message per line, kept as an alias.
    @Option(name: [.customLong("max-message-bytes"), .customLong("max-line-bytes")],
            help: "Longest accepted message in bytes (a line, or a Content-Length body); --max-line-bytes is an alias.")
    var maxMessageBytes: Int = ServerConfiguration().maxMessageBytes

    @Flag(help: "Offer the diagnostics.* methods (sleep, spin, fanout), which tests and benchmarks use to exercise the scheduler.")
    var diagnostics = false

    /// nil: one per core (`jobs`); optional so the help shows the rule, not this machine's count.
    @Option(help: "Compute jobs running at once (default: the number of cores).")
    var maxJobs: Int?

    /// `--max-jobs`, or the server's default (the number of cores).
    var jobs: Int { maxJobs ?? ServerConfiguration().maxJobs }

    @Option(help: "Compute jobs allowed to wait for a slot; beyond it requests get -32000.")
    var maxQueue: Int = ServerConfiguration().maxQueue

    @Option(help: "Seconds in-flight jobs may run after stdin closes.")
    var drainTimeout: Double = ServerConfiguration().drainTimeout.inSeconds

    @Option(help: "Largest image in pixels, checked from the header.")
    var maxPixels: Int = WorkerOptions().maxPixels

    @Option(help: "Most frames a motion source (GIF, animated WebP, video) may have, checked from its container and again while decoding.")
    var maxFrames: Int = WorkerOptions().maxFrames

    @Option(help: "Longest part of a motion source a job decodes, in seconds: the window it uses (start to start + duration, or to a target's longest, or to the clip's end) must fit, however long the clip; checked from its container before any frame, and again while decoding. image.info describes longer sources and names the limit in `exceeds`.")
    var maxDuration: Double = WorkerOptions().maxDuration

    @Option(help: "Byte budget of the decoded-image cache.")
    var cacheBytes: Int = WorkerOptions().cacheBytes

    @Option(help: ArgumentHelp(
        "Memory the whole worker may use: a size (1.5G, 768M; binary units) or a share of the smaller of the machine's memory and its cgroup's limit (75%). Jobs start only while their estimated peaks fit beside the running jobs'; a job that could never fit is refused with -32007. off: admit by --max-jobs alone.",
        valueName: "size|percent|off"))
    var maxMemory: MemorySetting = WorkerOptions().maxMemory

    @Option(help: "Largest body fetched for a URL source, in bytes.")
    var maxFetchBytes: Int = WorkerOptions().maxFetchBytes

    @Option(help: "Seconds a URL fetch may take in total (connect, headers and body).")
    var fetchTimeout: Double = WorkerOptions().fetchTimeout.inSeconds

    @Option(help: "Seconds an MCP session's requests wait for its client's roots (roots/list) before the session falls back to the working directory.")
    var rootsTimeout: Double = SessionPolicy.Configuration().rootsTimeout.inSeconds

    @Option(name: .customLong("allow-dir"), help: ArgumentHelp(
        "Confine sources and outputs to this folder (repeatable). Paths must resolve inside after symbolic links are followed. Without any --allow-* option, plain JSON-RPC sessions may use any path and MCP sessions their client's roots (else the working directory).",
        valueName: "dir"))
    var allowDirs: [String] = []

    @Option(name: .customLong("allow-read-dir"), help: ArgumentHelp("A folder sources may come from (repeatable; with --allow-write-dir when the two differ).", valueName: "dir"))
    var allowReadDirs: [String] = []

    @Option(name: .customLong("allow-write-dir"), help: ArgumentHelp("A folder outputs may go to (repeatable).", valueName: "dir"))
    var allowWriteDirs: [String] = []

    @Option(help: ArgumentHelp(
        "Which URL sources may be fetched: any, public (no loopback, private, link-local, unique-local, multicast or unspecified address, checked at every connection and redirect) or none. Default: public in MCP sessions, any otherwise.",
        valueName: "any|public|none"))
    var urls: URLPolicy?

    @Option(help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "warning"

    func validate() throws {
        guard maxMessageBytes >= 1024 else { throw ValidationError("--max-message-bytes must be at least 1024") }
        guard jobs >= 1 else { throw ValidationError("--max-jobs must be at least 1") }
        guard maxQueue >= 0 else { throw ValidationError("--max-queue must not be negative") }
        guard drainTimeout >= 0 else { throw ValidationError("--drain-timeout must not be negative") }
        guard fetchTimeout > 0 && fetchTimeout <= 3600 else { throw ValidationError("--fetch-timeout must be between 0 and 3600 seconds") }
        guard rootsTimeout > 0 && rootsTimeout <= 3600 else { throw ValidationError("--roots-timeout must be between 0 and 3600 seconds") }
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be at least 1") }
        guard maxFrames >= 1 else { throw ValidationError("--max-frames must be at least 1") }
        guard maxDuration > 0 && maxDuration.isFinite else { throw ValidationError("--max-duration must be a positive number of seconds") }
        for dir in allowDirs + allowReadDirs + allowWriteDirs {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw ValidationError("--allow-*-dir \(dir): no such folder")
            }
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    var serverConfiguration: ServerConfiguration {
        var c = ServerConfiguration()
        c.maxMessageBytes = maxMessageBytes
        c.maxJobs = jobs
        c.maxQueue = maxQueue
        c.drainTimeout = .milliseconds(Int(drainTimeout * 1000))
        return c
    }

    var workerOptions: WorkerOptions {
        var o = WorkerOptions()
        o.maxPixels = maxPixels
        o.maxFrames = maxFrames
        o.maxDuration = maxDuration
        o.cacheBytes = cacheBytes
        o.maxMemory = maxMemory
        o.maxFetchBytes = maxFetchBytes
        o.fetchTimeout = .milliseconds(Int(fetchTimeout * 1000))
        if !(allowDirs + allowReadDirs + allowWriteDirs).isEmpty {
            let canonical = { (dirs: [String]) in dirs.compactMap(SessionPolicy.canonical) }
            o.access.readDirectories = canonical(allowDirs + allowReadDirs)
            o.access.writeDirectories = canonical(allowDirs + allowWriteDirs)
        }
        o.access.urls = urls
        o.access.rootsTimeout = .milliseconds(Int(rootsTimeout * 1000))
        o.diagnostics = diagnostics
        return o
    }

    func makeLogger() -> Logger {
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = Logger.Level(rawValue: logLevel) ?? .warning
            return h
        }
        return Logger(label: "photoworker")
    }
}

extension PhotoWorkerCommand {
    /// The default: serve JSON-RPC on stdio.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve JSON-RPC 2.0 on stdin/stdout (the default).")

        @OptionGroup var flags: WorkerFlags

        @Option(help: ArgumentHelp(
            "How messages are framed: auto (from the first bytes; answers in kind), ndjson (one per line) or content-length (LSP's headers, what editors' stock clients speak).",
            valueName: "auto|ndjson|content-length"))
        var framing: FramingChoice = .auto

        func run() async throws {
            let logger = flags.makeLogger()
            for problem in ResourceCheck.problems() { logger.error("\(problem)") }
            if isatty(STDIN_FILENO) == 1 {
                // A person who typed `photoworker` sees why nothing happens; a client's pipe never gets this.
                Terminal.error("""
                    photoworker \(Worker.version): waiting for JSON-RPC 2.0 requests on stdin (one per line, or with \
                    Content-Length headers); Ctrl-D ends. Try `photoworker demo`, `photoworker call ping`, or `photoworker --help`.
                    """)
            }
            let protocolOut = StdoutGuard.takeProtocolStream()
            var configuration = flags.serverConfiguration
            configuration.framing = framing.framing
            let server = Worker.makeServer(
                configuration: configuration, options: flags.workerOptions,
                input: STDIN_FILENO, output: protocolOut, logger: logger)
            let code = await server.run()
            Foundation.exit(code)
        }
    }
}

extension URLPolicy: ExpressibleByArgument {}

/// `--framing`: a forced ``MessageFraming`` or detection.
enum FramingChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, ndjson
    case contentLength = "content-length"

    var framing: MessageFraming? {
        switch self {
        case .auto: return nil
        case .ndjson: return .ndjson
        case .contentLength: return .contentLength
        }
    }
}

/// Keeps the protocol stream clean: the writer gets a private duplicate of the real stdout and
/// fd 1 is pointed at stderr, so a stray `print` or a C library message can never corrupt it.
enum StdoutGuard {
    static func takeProtocolStream() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let protocolFD = dup(STDOUT_FILENO)
        guard protocolFD >= 0 else {
            Terminal.error("photoworker: cannot duplicate stdout")
            exit(1)
        }
        fflush(nil)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        return protocolFD
    }
}

extension MemorySetting: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
    public var defaultValueDescription: String { "\(self) of the machine's or the cgroup's memory" }
}
