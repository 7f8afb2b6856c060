#ifndef CFUZZSUPPORT_H
#define CFUZZSUPPORT_H
#include <stddef.h>
#include <stdint.h>

/// The fuzz callback's type.
typedef int (*CFuzzSupport_callback)(const uint8_t *data, size_t size);

/// Whether libFuzzer is linked in (a -sanitize=fuzzer build).
int CFuzzSupport_hasDriver(void);

/// Runs libFuzzer's driver with the command line; -1 when libFuzzer is not linked in.
int CFuzzSupport_runDriver(int *argc, char ***argv, CFuzzSupport_callback callback);

#endif
