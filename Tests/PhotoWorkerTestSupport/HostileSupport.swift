import Foundation
import Imaging
import JSONRPCTransport
import Testing

import Glibc

/// A fresh empty folder under the system temp directory; removed by `remove()`.
package struct TempFolder {
    package let path: String

    package init(_ label: String) throws {
        path = NSTemporaryDirectory() + "photoworker-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    package func remove() { try? FileManager.default.removeItem(atPath: path) }

    package var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

extension JSONValue {
    /// `error.code` of a reply, nil for a success.
    package var errorCode: Int? { self["error"]?["code"]?.intValue }
}

extension WorkerProcess {
    /// The worker still answers: a ping comes back with `{}`.
    package func expectServing(_ id: Int = 999_999, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let reply = try await call(id, "ping")
        #expect(reply["result"] == .object([:]), "worker stopped serving: \(reply)", sourceLocation: sourceLocation)
    }

    /// Sends a raw line (any bytes, newline appended).
    package func send(bytes line: [UInt8]) { sendBytes(line + [0x0A]) }
}

/// Checks that a folder holds no temporary files and only complete PNGs (signature and a final
/// IEND chunk); returns the PNG names.
@discardableResult
package func expectOnlyCompletePNGs(in folder: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
    var pngs: [String] = []
    let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let enumerator = FileManager.default.enumerator(atPath: folder)
    while let name = enumerator?.nextObject() as? String {
        let full = folder + "/" + name
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: full, isDirectory: &isDir), isDir.boolValue { continue }
        #expect(!name.contains(".tmp-"), "temporary file left behind: \(name)", sourceLocation: sourceLocation)
        guard name.hasSuffix(".png") else {
            Issue.record("unexpected file \(name)", sourceLocation: sourceLocation)
            continue
        }
        let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: full))) ?? Data())
        #expect(bytes.starts(with: signature) && bytes.count > 20 && Array(bytes.suffix(12)) == iend,
                "incomplete PNG \(name) (\(bytes.count) bytes)", sourceLocation: sourceLocation)
        pngs.append(name)
    }
    return pngs
}

/// Whether a process id is gone (or a zombie nobody reaped yet, which runs no code either).
package func processIsGone(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
    // The state follows the parenthesised command name, which may itself contain spaces.
    guard let close = stat.lastIndex(of: ")") else { return true }
    let rest = stat[stat.index(after: close)...].split(separator: " ")
    return rest.first == "Z" || rest.first == "X"
}

/// Processes whose parent is `pid` (from /proc), except a sanitizer runtime's symbolizer: under
/// ThreadSanitizer the worker's first report starts `llvm-symbolizer` as its child, which is the
/// runtime's doing, not the worker's.
package func childProcesses(of pid: pid_t) -> [pid_t] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return names.compactMap { name -> pid_t? in
        guard let child = pid_t(name),
              let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
        let command = stat[stat.index(after: open)..<close]
        if command == "llvm-symbolizer" || command == "addr2line" { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
    }
}

/// Polls `condition` until it holds or `timeout` passes (a failure guard, not a sleep).
package func eventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + TestTiming.guarded(timeout)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return true
}

