import Deadlines
@testable import JSONRPC
import JSONRPCTransport
import Logging
import Testing

/// Tells the place in the order of admission its context carries (nil: none).
struct AdmissionOrderMethod: RPCMethod {
    static let name = "test.admissionOrder"
    static let cost = MethodCost.compute
    static let contract: MethodContract = "{}"
    struct Result: Codable, Sendable { var order: Int? }
    func handle(_ params: NoParams, context: RequestContext) async throws -> Result {
        Result(order: context.admissionOrder.map { Int($0) })
    }
}

/// The same, for a method that takes no slot.
struct ImmediateAdmissionOrderMethod: RPCMethod {
    static let name = "test.immediateAdmissionOrder"
    static let cost = MethodCost.immediate
    static let contract: MethodContract = "{}"
    func handle(_ params: NoParams, context: RequestContext) async throws -> AdmissionOrderMethod.Result {
        AdmissionOrderMethod.Result(order: context.admissionOrder.map { Int($0) })
    }
}

/// A compute job's place in the order of admission reaches its handler in its context, a plain value the
/// application schedules the job's work by (the worker's compute lease); nothing else carries it.
@MainActor @Suite(.timeLimit(.minutes(10)))
struct AdmissionOrderTests {
    @Test func aComputeJobsContextCarriesItsPlaceInTheOrderOfAdmission() async throws {
        var configuration = ServerConfiguration()
        configuration.handleSignals = false
        configuration.watchParent = false
        configuration.timers = ManualTimers()
        var methods = MethodTable()
        methods.register(AdmissionOrderMethod())
        methods.register(ImmediateAdmissionOrderMethod())
        let connection = try InProcessConnection(readerThread: "admission-client") { input, output in
            Server(configuration: configuration, methods: methods, input: input, output: output, logger: Logger(label: "test"))
        }
        let first = try await Deadline.run("the reply to test.admissionOrder") { try await connection.call("test.admissionOrder", [:]) }
        let second = try await Deadline.run("the reply to test.admissionOrder") { try await connection.call("test.admissionOrder", [:]) }
        let immediate = try await Deadline.run("the reply to test.immediateAdmissionOrder") { try await connection.call("test.immediateAdmissionOrder", [:]) }
        guard let a = first["order"]?.intValue, let b = second["order"]?.intValue else {
            Issue.record("a compute job's context carried no admission order: \(first), \(second)")
            return
        }
        #expect(a < b, "the later job's place \(b) is not after the earlier's \(a)")
        #expect(immediate["order"] == nil || immediate["order"] == .null, "a method without a slot got a place: \(immediate)")
        let code = try await Deadline.value(of: Task { await connection.close() }, "the connection to close")
        #expect(code == 0)
    }
}
