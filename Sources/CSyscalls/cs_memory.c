#include <malloc.h>

#include "CSyscalls.h"

int cs_malloc_trim(void) {
    return malloc_trim(0);
}
