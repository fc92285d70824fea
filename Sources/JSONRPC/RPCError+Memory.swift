import JSONRPCTransport

extension RPCError {
    /// A job whose estimated memory alone is more than the whole budget: refused before it starts, since it could
    /// never be admitted. `data` says how many bytes it needs, the budget, and how the budget was chosen.
    public static func overMemoryBudget(neededBytes: Int, budget: MemoryBudget?) -> RPCError {
        let mib = { (bytes: Int) in String(format: "%.0f MiB", Double(bytes) / 1_048_576) }
        let total = budget?.bytes ?? 0
        return RPCError(
            code: .overMemoryBudget, message: "the job needs more memory than the worker may use",
            data: [
                "reason": .string("this job needs about \(mib(neededBytes)); the worker's jobs may hold \(mib(total)) in all (\(budget?.origin ?? "no budget")); raise --max-memory, give the worker more memory, or ask for a smaller output"),
                "neededBytes": .int(neededBytes), "budgetBytes": .int(total),
            ])
    }
}
