#ifndef CSPAWN_SHIM_H
#define CSPAWN_SHIM_H

/* glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later) is declared only under _GNU_SOURCE, which Swift's Glibc
 * module is not built with: declared here as glibc declares it. */
#include <spawn.h>

extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/* The child closes every descriptor from `from` on (those inherited without close-on-exec too). */
static inline int CSpawn_closeFrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

#endif
