#include "CCodecs.h"
int ccodecs_version(void) { return 1; }
