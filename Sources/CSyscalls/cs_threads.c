#include "CSyscalls.h"

#include <errno.h>
#include <sys/prctl.h>

int cs_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0) == 0 ? 0 : -errno;
}
