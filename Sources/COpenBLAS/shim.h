// OpenBLAS's CBLAS interface (Debian's libopenblas-dev): the peer `photobench gemm` measures the engine's own
// matrix product against. The worker does not link it.
#include <cblas.h>
