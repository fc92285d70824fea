// OpenBLAS's CBLAS interface (Debian's libopenblas-dev), for the inference engine's convolutions.
#include <cblas.h>
