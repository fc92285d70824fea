#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "CSyscalls.h"

const int cs_o_path = O_PATH;

int cs_openat2_beneath(int dirfd, const char *path, int flags, unsigned int mode) {
#ifdef SYS_openat2
    struct open_how how = {
        .flags = (unsigned long long)flags,
        .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    return fd < 0 ? -errno : (int)fd;
#else
    (void)dirfd; (void)path; (void)flags; (void)mode;
    return -ENOSYS;
#endif
}

int cs_renameat_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    int r = renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE);
    return r < 0 ? -errno : 0;
}
