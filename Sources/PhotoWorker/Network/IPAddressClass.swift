import Glibc

/// Sorts IP addresses into public and the ranges a fetch on behalf of a client must not reach.
public enum IPAddressClass: String, Sendable, Equatable {
    case `public`
    case loopback
    /// RFC 1918, carrier-grade NAT (100.64/10), benchmarking (198.18/15) and IETF (192.0.0/24).
    case `private`
    case linkLocal = "link-local"
    /// IPv6 fc00::/7.
    case uniqueLocal = "unique-local"
    case multicast
    /// 0.0.0.0/8, `::`, 240/4 and the broadcast address.
    case unspecified

    /// The class of a literal address (`127.0.0.1`, `::1`, `::ffff:10.0.0.1`); nil if not an address.
    public init?(literal: String) {
        var host = literal
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let zone = host.firstIndex(of: "%") { host = String(host[..<zone]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            self = Self.classify(v4: withUnsafeBytes(of: v4.s_addr) { Array($0) })
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            self = Self.classify(v6: withUnsafeBytes(of: v6) { Array($0) })
            return
        }
        return nil
    }

    /// Network-order bytes of an IPv4 address.
    public static func classify(v4 b: [UInt8]) -> IPAddressClass {
        switch (b[0], b[1]) {
        case (0, _): return .unspecified
        case (10, _): return .private
        case (100, 64...127): return .private
        case (127, _): return .loopback
        case (169, 254): return .linkLocal
        case (172, 16...31): return .private
        case (192, 168): return .private
        case (192, 0) where b[2] == 0: return .private
        case (198, 18...19): return .private
        case (224...239, _): return .multicast
        case (240...255, _): return .unspecified
        default: return .public
        }
    }

    /// The 16 bytes of an IPv6 address.
    public static func classify(v6 b: [UInt8]) -> IPAddressClass {
        let prefix10 = b[..<10].allSatisfy { $0 == 0 }
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): the IPv4 address decides.
        if prefix10 && b[10] == 0xFF && b[11] == 0xFF { return classify(v4: Array(b[12...])) }
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b[..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        if prefix10 && b[10] == 0 && b[11] == 0 { return classify(v4: Array(b[12...])) }
        // NAT64 (64:ff9b::/96) reaches the embedded IPv4 address.
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B && b[4..<12].allSatisfy({ $0 == 0 }) {
            return classify(v4: Array(b[12...]))
        }
        if b[0] == 0xFF { return .multicast }
        if b[0] & 0xFE == 0xFC { return .uniqueLocal }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .uniqueLocal }  // deprecated site-local
        return .public
    }
}
