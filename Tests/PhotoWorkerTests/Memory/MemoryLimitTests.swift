import Foundation
@testable import PhotoWorker
import PhotoWorkerTestSupport
import Testing

/// Where the worker finds its memory limit: /proc/meminfo, and cgroup v1 and v2 as mountinfo and /proc/self/cgroup
/// place them; and what `--max-memory` accepts.
@Suite(.timeLimit(.minutes(10)))
struct MemoryLimitTests {
    static let mountinfo = """
        22 1 0:21 / /sys rw,nosuid shared:7 - sysfs sysfs rw
        30 22 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
        35 30 0:31 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,memory
        36 30 0:32 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw
        """

    @Test func cgroupV1LimitsAreReadUpTheHierarchy() {
        let files = [
            "/sys/fs/cgroup/memory/jobs/worker/memory.limit_in_bytes": "805306368\n",
            "/sys/fs/cgroup/memory/jobs/memory.limit_in_bytes": "2147483648\n",
            "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",  // unlimited
        ]
        let limits = MemoryLimit.cgroupLimits(mountinfo: Self.mountinfo, cgroup: "4:memory:/jobs/worker\n0::/\n",
                                              read: { files[$0] })
        #expect(limits.map(\.bytes) == [805_306_368, 2_147_483_648], "\(limits)")
        #expect(limits.first?.origin.contains("cgroup v1") == true)
    }

    @Test func cgroupV2MaxIsReadAndMaxMeansUnlimited() {
        let mountinfo = "40 30 0:33 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
        let files = [
            "/sys/fs/cgroup/pod/ctr/memory.max": "max\n",
            "/sys/fs/cgroup/pod/memory.max": "536870912\n",
        ]
        let limits = MemoryLimit.cgroupLimits(mountinfo: mountinfo, cgroup: "0::/pod/ctr\n", read: { files[$0] })
        #expect(limits.map(\.bytes) == [536_870_912], "\(limits)")
        #expect(limits.first?.origin.contains("cgroup v2") == true)
    }

    /// Inside a container's cgroup namespace the process sees `/` while the mount's root is its own group.
    @Test func aPathOutsideTheMountRootIsTheMountPoint() {
        let mount = MemoryLimit.Mount(point: "/sys/fs/cgroup", root: "/kubepods/pod1")
        #expect(MemoryLimit.directories(from: mount, cgroupPath: "/") == ["/sys/fs/cgroup"])
        #expect(MemoryLimit.directories(from: mount, cgroupPath: "/kubepods/pod1/ctr") == ["/sys/fs/cgroup/ctr", "/sys/fs/cgroup"])
    }

    @Test func theMachinesMemoryComesFromMeminfo() {
        #expect(MemoryLimit.machineBytes("MemTotal:       24731828 kB\nMemFree: 1 kB\n") == 24_731_828 * 1024)
        #expect(MemoryLimit.machineBytes("nothing") == nil)
    }

    @Test func detectFindsTheSmallerOfTheMachineAndTheCgroup() throws {
        let root = try TempFolder("memory-limit")
        defer { root.remove() }
        func write(_ path: String, _ text: String) throws {
            let full = root.path + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: false, encoding: .utf8)
        }
        try write("/proc/meminfo", "MemTotal: 8388608 kB\n")
        try write("/proc/self/mountinfo", Self.mountinfo)
        try write("/proc/self/cgroup", "4:memory:/ci\n")
        try write("/sys/fs/cgroup/memory/ci/memory.limit_in_bytes", "1073741824\n")
        let limit = MemoryLimit.detect(root: root.path)
        #expect(limit.bytes == 1 << 30, "\(limit)")
        #expect(limit.origin.contains("/sys/fs/cgroup/memory/ci/memory.limit_in_bytes"), "\(limit)")
        try write("/sys/fs/cgroup/memory/ci/memory.limit_in_bytes", "9223372036854771712\n")
        #expect(MemoryLimit.detect(root: root.path).origin == "the machine's memory")
    }

    @Test(arguments: [
        ("1.5G", MemorySetting.bytes(1_610_612_736)), ("768M", .bytes(805_306_368)), ("512MiB", .bytes(536_870_912)),
        ("2GB", .bytes(2_147_483_648)), ("1.5 GiB", .bytes(1_610_612_736)), ("1048576", .bytes(1_048_576)), ("75%", .share(0.75)), ("off", .off),
    ])
    func maxMemoryAcceptsSizesSharesAndOff(text: String, expected: MemorySetting) {
        #expect(MemorySetting(text) == expected, "\(text) read as \(String(describing: MemorySetting(text)))")
    }

    @Test(arguments: ["", "0", "-1G", "150%", "0%", "lots", "1.5Q", "1e30"])
    func maxMemoryRefusesNonsense(text: String) {
        #expect(MemorySetting(text) == nil, "\(text) read as \(String(describing: MemorySetting(text)))")
    }

    /// The budget is the worker's share less what it holds itself; off is no budget.
    @Test func theBudgetIsTheShareLessWhatTheWorkerHolds() throws {
        let limit = MemoryLimit(bytes: 1 << 30, origin: "test")
        let budget = try #require(WorkerMemoryBudget.make(.share(0.5), limit: { limit }, residentBytes: 100 << 20))
        #expect(budget.bytes == (512 << 20) - (100 << 20) - WorkerMemoryBudget.loadedLaterBytes)
        #expect(budget.origin.contains("50% of 1 GiB (test)"), "\(budget.origin)")
        #expect(WorkerMemoryBudget.make(.off, limit: { limit }, residentBytes: 0) == nil)
        let tiny = try #require(WorkerMemoryBudget.make(.bytes(10 << 20), limit: { limit }, residentBytes: 100 << 20))
        #expect(tiny.bytes == 0)
    }
}
