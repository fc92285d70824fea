#include "CCodecs.h"
#include <stdlib.h>

void cc_free(void *p) { free(p); }
