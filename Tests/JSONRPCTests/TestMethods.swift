import Foundation
@testable import JSONRPC
import JSONRPCTransport
import Logging
import Synchronization
import Testing

import Glibc

/// Waits in the test until cancelled: a job that never ends by itself.
struct ParkMethod: RPCMethod {
    static let name = "test.park"
    static let cost = MethodCost.compute
    static let contract: MethodContract = "{}"
    func handle(_ params: NoParams, context: RequestContext) async throws -> EmptyResult {
        try await Task.sleep(for: .seconds(3600))
        return EmptyResult()
    }
}

/// Answers at once.
struct EchoMethod: RPCMethod {
    static let name = "test.echo"
    static let cost = MethodCost.immediate
    static let contract: MethodContract = "{}"
    struct Params: Codable, Sendable { var value: Int }
    func handle(_ params: Params, context: RequestContext) async throws -> Params { params }
}
