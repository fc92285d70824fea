import Foundation
import JSONRPC
import JSONRPCTransport
@testable import PhotoWorker
import Testing

import Glibc

@Suite(.timeLimit(.minutes(10)))
struct IPAddressClassTests {
    @Test(arguments: [
        ("8.8.8.8", IPAddressClass.public), ("93.184.216.34", .public), ("[2606:4700::1111]", .public),
        ("127.0.0.1", .loopback), ("127.255.0.9", .loopback), ("::1", .loopback), ("[::1]", .loopback),
        ("10.0.0.1", .private), ("172.16.5.4", .private), ("172.31.255.255", .private), ("172.32.0.1", .public),
        ("192.168.0.1", .private), ("100.64.0.1", .private), ("100.128.0.1", .public), ("198.18.0.1", .private),
        ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal), ("fe80::1%eth0", .linkLocal),
        ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal),
        ("224.0.0.1", .multicast), ("ff02::1", .multicast),
        ("0.0.0.0", .unspecified), ("::", .unspecified), ("255.255.255.255", .unspecified),
        ("::ffff:127.0.0.1", .loopback), ("::ffff:10.1.2.3", .private), ("::ffff:8.8.8.8", .public),
        ("64:ff9b::a9fe:a9fe", .linkLocal), ("::127.0.0.1", .loopback),
    ])
    func classifies(_ literal: String, _ expected: IPAddressClass) {
        #expect(IPAddressClass(literal: literal) == expected, "\(literal)")
    }

    @Test func namesAreNotAddresses() {
        #expect(IPAddressClass(literal: "localhost") == nil)
        #expect(IPAddressClass(literal: "10.0.0") == nil)
    }
}
