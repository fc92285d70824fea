/// How a file describes its colours: an ICC profile, or CICP code points (H.273, HEIF's `nclx`).
public enum ColorDescription: Sendable, Hashable, CustomStringConvertible {
    /// An embedded ICC profile; `name` is its description tag ("Display P3", "Adobe RGB (1998)"), possibly empty.
    case icc(name: String, bytes: Int)
    /// CICP colour primaries and transfer characteristics (ITU-T H.273 code points).
    case cicp(primaries: Int, transfer: Int)

    public var description: String {
        switch self {
        case .icc(let name, let bytes): return name.isEmpty ? "ICC profile (\(bytes) bytes)" : name
        case .cicp(let primaries, let transfer): return "CICP \(Self.primariesName(primaries)), \(Self.transferName(transfer))"
        }
    }

    static func primariesName(_ code: Int) -> String {
        switch code {
        case 1: return "BT.709"
        case 9: return "BT.2020"
        case 11: return "DCI-P3"
        case 12: return "Display P3"
        default: return "primaries \(code)"
        }
    }

    static func transferName(_ code: Int) -> String {
        switch code {
        case 1, 6, 14, 15: return "BT.709 transfer"
        case 8: return "linear"
        case 13: return "sRGB transfer"
        case 16: return "PQ"
        case 18: return "HLG"
        default: return "transfer \(code)"
        }
    }
}
