#ifndef CSYSCALLS_H
#define CSYSCALLS_H

#include <stddef.h>

/// Linux system calls that glibc does not wrap (or wraps only under _GNU_SOURCE), for the
/// worker's confined file access (each returns the result, or -errno on failure), and the
/// glibc malloc controls the worker uses.

/// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS: `path` must resolve inside `dirfd`
/// (no "..", absolute path or symbolic link leading out). -ENOSYS where the kernel lacks openat2.
int cs_openat2_beneath(int dirfd, const char *path, int flags, unsigned int mode);

/// renameat2(2) with RENAME_NOREPLACE: fails with -EEXIST instead of replacing `newpath`.
int cs_renameat_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// O_PATH (defined by glibc only under _GNU_SOURCE, so not visible to Swift's Glibc module).
extern const int cs_o_path;

/// malloc_trim(3) (glibc's malloc.h, not visible to Swift's Glibc module): returns the free memory
/// of every malloc arena to the system; 1 if some was released.
int cs_malloc_trim(void);

/// mallopt(3)'s M_MMAP_THRESHOLD and M_TRIM_THRESHOLD: buffers from `bytes` up are mapped for themselves and handed
/// back when freed; the heap's free top is returned from `trim_bytes` up. Setting them ends glibc's dynamic
/// threshold for the process (which rises to the largest mapped buffer freed so far, up to 32 MiB, with a trim
/// threshold of twice that).
void cs_set_mmap_threshold(size_t bytes, size_t trim_bytes);

/// prctl(2)'s PR_SET_NAME (prctl is variadic, which Swift cannot call; pthread_setname_np needs _GNU_SOURCE): names
/// the calling thread, cut to the 15 bytes Linux keeps. 0, or -errno.
int cs_name_this_thread(const char *name);

// The library limits malloc's arenas before main (a constructor in cs_memory.c: one per two cores).

#endif
