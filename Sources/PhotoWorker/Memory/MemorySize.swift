import Foundation

/// What `--max-memory` says: a size, a share of the memory the process may use, or no budget at all.
public enum MemorySetting: Sendable, Equatable, CustomStringConvertible {
    /// A share of the smaller of the machine's memory and the cgroup's limit (the default: 90%).
    case share(Double)
    /// Exactly this many bytes for the whole worker.
    case bytes(Int)
    /// No budget: jobs are admitted by count alone (`--max-jobs`), as before the budget existed.
    case off

    /// The default: 90% of what the process may use, leaving room for what no estimate sees (allocator slack,
    /// thread stacks, the page cache the kernel charges to a cgroup).
    public static let standard = MemorySetting.share(0.9)

    /// Parses `1.5G`, `768M`, `512MiB`, `2GB`, `1073741824`, `75%`, or `off`. Sizes are binary (`1G` is 2^30
    /// bytes, as Docker's `--memory` and Java's `-Xmx` read them).
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t == "off" || t == "none" {
            self = .off
            return
        }
        if t.hasSuffix("%") {
            guard let p = Double(t.dropLast()), p > 0, p <= 100 else { return nil }
            self = .share(p / 100)
            return
        }
        guard let bytes = MemorySize.parse(t), bytes > 0 else { return nil }
        self = .bytes(bytes)
    }

    public var description: String {
        switch self {
        case .share(let s): "\(Int((s * 100).rounded()))%"
        case .bytes(let b): MemorySize.describe(b)
        case .off: "off"
        }
    }
}

/// Byte counts as people write them.
public enum MemorySize {
    /// `1.5G`, `768m`, `512MiB`, `2GB`, `64k`, `1073741824`: binary units, case-insensitive; nil if not a size.
    public static func parse(_ text: String) -> Int? {
        var t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t.hasSuffix("ib") { t.removeLast(2) } else if t.hasSuffix("b") { t.removeLast() }
        let units: [Character: Double] = ["k": 1024, "m": 1_048_576, "g": 1_073_741_824, "t": 1_099_511_627_776]
        var scale = 1.0
        if let last = t.last, let unit = units[last] {
            scale = unit
            t.removeLast()
        }
        t = t.trimmingCharacters(in: .whitespaces)  // "1.5 GiB", as describe() writes it
        guard !t.isEmpty, let value = Double(t), value.isFinite, value >= 0 else { return nil }
        let bytes = value * scale
        guard bytes < Double(1 << 62) else { return nil }
        return Int(bytes.rounded())
    }

    /// `768 MiB`, `1.5 GiB`.
    public static func describe(_ bytes: Int) -> String {
        let gib = Double(bytes) / 1_073_741_824
        if gib >= 1 { return gib == gib.rounded() ? "\(Int(gib)) GiB" : String(format: "%.1f GiB", gib) }
        return "\(Int((Double(bytes) / 1_048_576).rounded())) MiB"
    }
}
