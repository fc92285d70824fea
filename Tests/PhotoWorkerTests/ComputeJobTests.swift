import Compute
import JSONRPC
@testable import PhotoWorker
import Testing

/// A handler's pixel work runs as its job: the lease comes from the job's place in the order of admission, which the
/// server hands the handler in its context, and is passed on explicitly with the pool (``ComputeJob``; the pool's
/// order among leases is ComputeLeaseSchedulingTests').
@Suite(.timeLimit(.minutes(10)))
struct ComputeJobTests {
    @Test func aJobsComputeIsLeasedByItsPlaceInTheOrderOfAdmission() {
        let services = WorkerServices(options: WorkerOptions(), maxJobs: 2)
        let admitted = RequestContext(id: .string("scale"), method: "image.scale", registry: nil, admissionOrder: 7)
        let job = services.computeJob(for: admitted)
        #expect(job.lease == ComputeLease(order: 7), "lease \(job.lease)")
        #expect(job.pool === services.compute)
        let outside = RequestContext(id: .string("info"), method: "image.info", registry: nil)
        #expect(services.computeJob(for: outside).lease == .unleased, "lease \(services.computeJob(for: outside).lease)")
    }
}
