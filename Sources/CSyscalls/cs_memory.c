#include <malloc.h>

#include "CSyscalls.h"

int cs_malloc_trim(void) {
    return malloc_trim(0);
}

int cs_malloc_arena_limit(int count) {
    return mallopt(M_ARENA_MAX, count);
}
