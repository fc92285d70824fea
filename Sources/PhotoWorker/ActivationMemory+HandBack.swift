import CSyscalls
import Inference

extension ActivationMemory {
    /// Hands back the blocks no pass is using, then the memory malloc holds free (its arenas keep freed memory
    /// otherwise): what the worker does when it goes idle, and a large photo before its cut-out.
    func handBack() {
        release()
        _ = cs_malloc_trim()
    }
}
