import Foundation
import JSONRPC

/// The worker's memory budget from `--max-memory` and what the process may use: the bytes its jobs' estimates and
/// its holders (the decoded-image cache, the network's idle activation blocks) may take together.
enum WorkerMemoryBudget {
    /// Kept outside the budget beyond the memory resident at start: the codecs' code and tables and the face
    /// detector, which load with the first job that needs them, the compute and blocking threads' stacks, and the
    /// allocator's slack. (The network's weights and activations are in each estimate of a method that runs it.)
    static let loadedLaterBytes = 48 << 20
    /// Below this a budget refuses a sticker of any photo: the worker warns at start.
    static let smallestUsefulBytes = 128 << 20

    /// The budget for `setting`; nil for `off`. A share is of `limit()`, asked only then; the whole process's
    /// figure less `residentBytes` (what the process holds now) and ``loadedLaterBytes`` is what jobs may hold.
    static func make(_ setting: MemorySetting, limit: () -> MemoryLimit, residentBytes: Int) -> MemoryBudget? {
        let total: Int, origin: String
        switch setting {
        case .off:
            return nil
        case .bytes(let bytes):
            total = bytes
            origin = "--max-memory \(MemorySize.describe(bytes))"
        case .share(let share):
            let limit = limit()
            total = Int(Double(limit.bytes) * share)
            origin = "\(setting) of \(limit)"
        }
        let kept = residentBytes + loadedLaterBytes
        return MemoryBudget(bytes: max(0, total - kept),
                            origin: "\(origin), less \(MemorySize.describe(kept)) the worker itself holds")
    }

    /// This process's resident set now, in bytes (`VmRSS`).
    static var residentBytes: Int { (ServerStats.statusKiB("VmRSS") ?? 0) * 1024 }
}
