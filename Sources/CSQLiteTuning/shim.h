#ifndef CSQLITETUNING_SHIM_H
#define CSQLITETUNING_SHIM_H

/* sqlite3_config(3) is variadic, which Swift cannot call; these wrap the settings latchkey makes. */
#include <sqlite3.h>

/* Turns off SQLite's memory statistics, which take a mutex on every allocation (SQLite's own
 * advice for speed: https://sqlite.org/malloc.html#memstatus); nothing here reads them. Only
 * before SQLite initializes: afterwards it answers SQLITE_MISUSE and changes nothing. */
static inline int CSQLiteTuning_memoryStatisticsOff(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

#endif
