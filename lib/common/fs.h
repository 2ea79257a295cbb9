/* SPDX-License-Identifier: MIT */
/*
 * Paths the daemon builds from names it does not control (an app's process
 * name, a channel name) must stay inside the directory they were meant for:
 * these helpers walk a relative path one component at a time from a
 * directory descriptor, never following a symbolic link and refusing "."
 * and "..", so that a link planted in a trace directory (or a name like
 * "../../x") cannot send a write elsewhere. All descriptors are O_CLOEXEC.
 * Return >= 0 or -errno.
 */
#ifndef STRATA_COMMON_FS_H
#define STRATA_COMMON_FS_H

#include <stdbool.h>
#include <sys/types.h>

/* mkdir -p path: missing components with mode (umask applies). */
int fs_mkdir_p(const char *path, mode_t mode);

/*
 * Open the directory rel (components separated by '/') beneath dirfd,
 * creating missing components with mode when create is set. Each component
 * must be a plain name: "", ".", ".." and symbolic links are refused
 * (-EINVAL, -ELOOP / -ENOTDIR). Returns the directory's descriptor.
 */
int fs_open_dir_beneath(int dirfd, const char *rel, mode_t mode, bool create);

/*
 * Create the file name (one component) in dirfd for writing: it must not
 * exist (-EEXIST) and is never a link followed. Returns its descriptor.
 */
int fs_create_file(int dirfd, const char *name, mode_t mode);

/* Whether name is one safe path component (see fs_open_dir_beneath()). */
bool fs_component_ok(const char *name);

#endif
