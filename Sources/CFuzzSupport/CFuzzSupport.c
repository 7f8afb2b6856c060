#include "CFuzzSupport.h"

/* Weak: present only when the binary is linked with libFuzzer (-sanitize=fuzzer). */
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t)) __attribute__((weak));

int CFuzzSupport_hasDriver(void) { return LLVMFuzzerRunDriver != 0; }

int CFuzzSupport_runDriver(int *argc, char ***argv, CFuzzSupport_callback callback) {
    if (LLVMFuzzerRunDriver == 0) return -1;
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
